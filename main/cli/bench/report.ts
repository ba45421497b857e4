// The benchmark report of DESIGN §1: a table on stdout, and the same rows as JSON on request.
import { execFileSync } from 'node:child_process';
import { renameSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export interface BenchRow {
  name: string;
  unit: string;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  value: number;
}

export interface BenchReport {
  suite: string;
  machine: { cpus: number; cpuModel: string; gpu: string | null };
  results: BenchRow[];
}

export function machineFacts(): BenchReport['machine'] {
  const cores = cpus();
  return { cpus: cores.length, cpuModel: cores[0]?.model.trim() ?? 'unknown', gpu: gpuName() };
}

function gpuName(): string | null {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=name', '--format=csv,noheader'], {
      encoding: 'utf8',
      timeout: 5000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.trim().split('\n')[0] || null;
  } catch {
    return null;
  }
}

export function formatTable(report: BenchReport): string {
  const header = ['name', 'unit', 'p50', 'p95', 'p99', 'value'];
  const cell = (n: number | null) => (n === null ? '-' : n.toPrecision(4));
  const rows = report.results.map((r) => [r.name, r.unit, cell(r.p50), cell(r.p95), cell(r.p99), cell(r.value)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const machine = `${report.machine.cpus} × ${report.machine.cpuModel}${report.machine.gpu ? `, ${report.machine.gpu}` : ', no GPU'}`;
  return [`suite ${report.suite} on ${machine}`, line(header), ...rows.map(line)].join('\n');
}

/** A suite may add fields of its own beside DESIGN §1's (written to the JSON) and a table of its own (printed after the rows). */
export function writeReport(report: BenchReport & Record<string, unknown>, jsonPath: string | undefined, extraTable?: string): void {
  process.stdout.write(`${formatTable(report)}\n`);
  if (extraTable) process.stdout.write(`${extraTable}\n`);
  writeJson(report, jsonPath);
}

/** The report as JSON at `jsonPath` (nothing without one), replaced whole: a reader never sees half a file. */
export function writeJson(report: BenchReport & Record<string, unknown>, jsonPath: string | undefined): void {
  if (!jsonPath) return;
  const partial = `${jsonPath}.partial`;
  writeFileSync(partial, `${JSON.stringify(report, null, 2)}\n`);
  renameSync(partial, jsonPath);
}
