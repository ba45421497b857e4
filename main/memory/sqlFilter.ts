// Pieces of LanceDB (DataFusion) SQL filters. Column names are quoted because DataFusion folds
// unquoted names to lower case (episodeId would become episodeid); strings are quoted with '' for '.

export function sqlColumn(name: string): string {
  return `\`${name}\``;
}

export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

export function sqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`a filter needs a finite number, got ${value}`);
  return String(value);
}

export function sqlIn(column: string, values: readonly string[]): string {
  return `${sqlColumn(column)} IN (${values.map(sqlString).join(', ')})`;
}

/** The clauses joined with AND; undefined when there are none. */
export function sqlAnd(clauses: readonly string[]): string | undefined {
  return clauses.length === 0 ? undefined : clauses.map((clause) => `(${clause})`).join(' AND ');
}
