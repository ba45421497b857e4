// `reins bench memory-upkeep`: what the memory's background maintenance costs as a session grows.
// Ticks of 256 floats go in as the running core writes them (a commit of 20 rows every 2 s, at
// 10 Hz), on a simulated clock as fast as the disk goes, and maintenance runs every simulated minute,
// timed. Twice: with the ticks cut into segments (asked for: segmentRows FLAT_UPKEEP_SEGMENT_ROWS, each
// segment indexed from 10,000 rows), and in one table (the memory's default, and the layout before
// segments, where each run rewrites every tick). Segments: the mean run over each segment's
// rows (20k, 40k, 60k: a whole segment each, as a run's cost rises with the open segment's rows and
// falls when it closes). One table: the mean run over the 3,000 rows before 12k and 27k (issue 31's
// points; it stops there, enough to show its growth and keep the bench to a few minutes). Also the
// worst run and the 10 nearest ticks' search time at the end (it asks every segment).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { SeededRandom } from '../../core/util/seededRandom.ts';
import { FLAT_UPKEEP_SEGMENT_ROWS, openTickMemory, type TickRow } from '../../session/memoryParts.ts';
import type { BenchRow } from './report.ts';

export interface MemoryUpkeepBenchOptions {
  /** Segments: rows at which the mean run over the segment before is reported; the last is where writing stops. */
  marksRows: number[];
  /** One table: rows at which the mean run over the 3,000 rows before is reported; the last is where writing stops. */
  oneTableMarksRows: number[];
  embeddingSize: number;
  /** Rows per commit and commits per maintenance run (20 and 30: the tick writer's 2 s at 10 Hz, every minute). */
  commitRows: number;
  commitsPerRun: number;
  searchQueries: number;
}

const DEFAULTS: MemoryUpkeepBenchOptions = {
  marksRows: [FLAT_UPKEEP_SEGMENT_ROWS, 2 * FLAT_UPKEEP_SEGMENT_ROWS, 3 * FLAT_UPKEEP_SEGMENT_ROWS],
  oneTableMarksRows: [12_000, 27_000],
  embeddingSize: 256,
  commitRows: 20,
  commitsPerRun: 30,
  searchQueries: 50,
};
/** A search asks every segment, so each closed one gets its vector index (exact search of 10,000 rows: ~4 ms). */
const SEGMENT_INDEX_MIN_ROWS = 10_000;
/** Runs averaged for a mark of the one-table layout: those within this many rows before it. */
const ONE_TABLE_WINDOW_ROWS = 3000;
const log = (line: string) => process.stderr.write(`memory-upkeep: ${line}\n`);

interface RunTiming {
  rows: number;
  ms: number;
}

export async function runMemoryUpkeepBench(given: Partial<MemoryUpkeepBenchOptions> = {}): Promise<BenchRow[]> {
  const options = { ...DEFAULTS, ...given };
  const rows: BenchRow[] = [];
  for (const layout of ['segments', 'one-table'] as const) {
    const marksRows = layout === 'segments' ? options.marksRows : options.oneTableMarksRows;
    const windowRows = layout === 'segments' ? FLAT_UPKEEP_SEGMENT_ROWS : ONE_TABLE_WINDOW_ROWS;
    const { runs, searchMs, segments } = await growSession(layout, marksRows.at(-1)!, options);
    const size = `${Math.round(marksRows.at(-1)! / 1000)}k`;
    log(`${layout}: ${segments} table(s) at ${marksRows.at(-1)} rows`);
    for (const mark of marksRows) {
      const near = runs.filter((run) => run.rows <= mark && run.rows > mark - windowRows).map((run) => run.ms);
      rows.push({ name: `maintenance-${layout}-${Math.round(mark / 1000)}k`, unit: 'ms', ...percentiles(near), value: mean(near) });
    }
    rows.push({ name: `maintenance-${layout}-worst-to-${size}`, unit: 'ms', p50: null, p95: null, p99: null, value: Math.max(...runs.map((run) => run.ms)) });
    rows.push({ name: `knn-${layout}-${size}-${segments}-tables`, unit: 'ms', ...percentiles(searchMs), value: mean(searchMs) });
  }
  return rows;
}

async function growSession(
  layout: 'segments' | 'one-table',
  lastRows: number,
  options: MemoryUpkeepBenchOptions,
): Promise<{ runs: RunTiming[]; searchMs: number[]; segments: number }> {
  const scratch = mkdtempSync(join(tmpdir(), 'reins-bench-upkeep-'));
  try {
    const ticks = await openTickMemory(
      join(scratch, 'memory'),
      { version: 'bench-upkeep', embeddingSize: options.embeddingSize },
      layout === 'segments'
        ? { maintenance: { periodMs: 0, indexMinRows: SEGMENT_INDEX_MIN_ROWS }, reconnectEveryMs: 0, ticks: { segmentRows: FLAT_UPKEEP_SEGMENT_ROWS } }
        : { maintenance: { periodMs: 0 }, reconnectEveryMs: 0 },
    );
    const random = new SeededRandom(1);
    const embedding = () => Float32Array.from({ length: options.embeddingSize }, () => random.next() * 2 - 1);
    const startMs = Date.UTC(2026, 0, 1);
    const runs: RunTiming[] = [];
    let written = 0;
    while (written < lastRows) {
      for (let commit = 0; commit < options.commitsPerRun && written < lastRows; commit++) {
        const batch: TickRow[] = Array.from({ length: options.commitRows }, () => tick(written++, embedding(), startMs));
        await ticks.store.write(batch);
      }
      const runStart = performance.now();
      await ticks.memory.maintenance.runOnce();
      runs.push({ rows: written, ms: performance.now() - runStart });
      if (runs.length % 20 === 0) log(`${layout}: ${written} rows, last run ${runs.at(-1)!.ms.toFixed(0)} ms`);
    }
    const searchMs: number[] = [];
    for (let query = 0; query < options.searchQueries; query++) {
      const searchStart = performance.now();
      await ticks.nearest({ embedding: embedding() }, { k: 10 });
      searchMs.push(performance.now() - searchStart);
    }
    const segments = ticks.store.segments.length;
    await ticks.close();
    return { runs, searchMs, segments };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function tick(index: number, embedding: Float32Array, startMs: number): TickRow {
  return {
    episodeId: `episode-${Math.floor(index / 3000)}`,
    step: index % 3000,
    timeMs: startMs + index * 100,
    embedding,
    latent: undefined,
    actionLinearMps: 0.2,
    actionAngularRadps: 0,
    actedBy: index % 4 === 0 ? 'operator' : 'policy',
    surpriseNats: (index % 17) / 4,
    rewardEstimate: undefined,
    flags: 0,
    robotId: 'bench',
    encoderVersion: 'bench-upkeep',
    worldModelVersion: undefined,
    policyVersion: 'policy-1',
    mcapFile: 'bench.mcap',
    mcapLogTimeNs: BigInt(index) * 100_000_000n,
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}
