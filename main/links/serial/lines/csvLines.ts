// CSV lines from a board that prints its readings, e.g. "t_ms,left_ticks,right_ticks,vbat".
// The first line is the header unless columns are given; every later line must have as many
// numeric fields. Quoting is not supported: sensor CSV has none, and a quote is a clear error.

export type CsvParse =
  | { kind: 'record'; record: Record<string, number> }
  | { kind: 'header'; columns: string[] }
  /** An empty line or a # comment. */
  | { kind: 'skipped' }
  | { kind: 'error'; detail: string };

export class CsvLineParser {
  private columns: string[] | undefined;

  constructor(columns?: readonly string[]) {
    if (!columns) return;
    const checked = checkColumns([...columns]);
    if (typeof checked === 'string') throw new RangeError(checked);
    this.columns = checked;
  }

  parse(line: string): CsvParse {
    const text = line.trim();
    if (text === '' || text.startsWith('#')) return { kind: 'skipped' };
    const fields = text.split(',').map((field) => field.trim());
    if (!this.columns) {
      const header = checkColumns(fields);
      if (typeof header === 'string') return { kind: 'error', detail: header };
      this.columns = header;
      return { kind: 'header', columns: header };
    }
    if (fields.length !== this.columns.length) {
      return { kind: 'error', detail: `${fields.length} fields, the header has ${this.columns.length}: ${preview(text)}` };
    }
    const record: Record<string, number> = {};
    for (let i = 0; i < fields.length; i++) {
      const value = parseNumber(fields[i]!);
      if (value === undefined) return { kind: 'error', detail: `${this.columns[i]} = ${preview(fields[i]!)} is not a number` };
      record[this.columns[i]!] = value;
    }
    return { kind: 'record', record };
  }
}

function checkColumns(columns: string[]): string[] | string {
  if (columns.some((column) => !/^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/.test(column))) {
    return `header ${preview(columns.join(','))} has a column that is not a plain name`;
  }
  if (new Set(columns).size !== columns.length) return `header ${preview(columns.join(','))} repeats a column`;
  return columns;
}

/** Decimal numbers, plus nan/inf as sensors print them. */
function parseNumber(text: string): number | undefined {
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text);
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (lower === 'inf' || lower === '+inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  return undefined;
}

function preview(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
