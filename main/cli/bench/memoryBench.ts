// `reins bench memory`: the memory at the scale of months of driving. The simulated robot drives
// episodes in one arena, in lockstep, through the control loop and its encoders (the operator alone
// in half the episodes, supervising the policy in the others); every tick goes through the loop's
// MemoryWriter, while the sim's true poses are kept beside the table (never in it) for scoring. Some
// episodes are held out as queries. The distinct ticks are then extended to 1M rows by small
// perturbations: each a copy of a real tick plus Gaussian noise shaped like the ticks' spread, as
// far from its tick as the closest 10% of consecutive ticks in an episode are from each other (two
// frames of a robot barely moving), so a copy is a plausible revisit, not a bit-exact duplicate.
//
// Rows: insert (full ticks rows/s through the writer), pose-retrieval (of the 10 nearest ticks to a
// held-out tick, the fraction within 0.5 m and 30° of its true pose), knn-100k and knn-1m (ms for the
// 10 nearest), recall10-1m (against exact search, with knn-1m's index and settings, on queries not
// used to tune them), and what explains them: recall at 100k, a search filtered to operator ticks,
// exact search, and one maintenance run at 1M (compaction, vector index, episode index).
//
// Under load (issue 31): the same queries on the same table with the same settings, while `reins soak`
// runs in a child process — a core on the simulated robot with its learners, recording and memory
// upkeep, in the soak's configuration, a minute into its run: knn-1m-under-load, its recall against the
// idle exact search, and the soak core's CPU share over those queries (core-cpu-share, in cores).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZERO_DRIVE } from '../../core/messages.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { SeededRandom } from '../../core/util/seededRandom.ts';
import { DEFAULT_MANIFEST_PATH, openEncoders, type PerceptionOptions } from '../../session/encoders.ts';
import { openTickMemory, type MemoryWriter, type SearchSettings, type TickFilter, type TickMemory, type TickRow } from '../../session/memoryParts.ts';
import { writeRandomEncoders } from '../../session/perceptionParts.ts';
import type { Perception } from '../../core/perception.ts';
import type { Pose2D } from '../../sim/geometry.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import { createControlLoop } from '../../session/loopWiring.ts';
import type { BenchRow } from './report.ts';
import { startSoakLoad } from './soakLoad.ts';

export interface MemoryBenchOptions {
  encoders: string;
  perception: Partial<PerceptionOptions>;
  arenaSeed: number;
  /** Distinct ticks written from the sim (held-out episodes come on top). */
  distinctTicks: number;
  /** Every this-many-th episode is held out: never written, its ticks are the queries. */
  heldOutEvery: number;
  /** Rows for knn-100k and for the rest of the suite. */
  midRows: number;
  totalRows: number;
  /** A perturbation's size: this quantile of the distances between consecutive ticks of an episode. */
  perturbationQuantile: number;
  poseQueries: number;
  tuneQueries: number;
  evalQueries: number;
  /** Tuning picks the fastest settings reaching this recall on the tuning queries. */
  tuneRecall: number;
  /** The searches under a running core's load: off, with the rest of the suite, or alone (no pose retrieval, no mid-size rows). */
  underLoad: 'off' | 'also' | 'only';
  /** How long the soak under the searches drives (it is searched beside after its first minute). */
  loadSoakMinutes: number;
}

const DEFAULTS: MemoryBenchOptions = {
  encoders: DEFAULT_MANIFEST_PATH,
  perception: {},
  arenaSeed: 1,
  distinctTicks: 50_000,
  heldOutEvery: 25,
  midRows: 100_000,
  totalRows: 1_000_000,
  perturbationQuantile: 0.1,
  poseQueries: 500,
  tuneQueries: 40,
  evalQueries: 100,
  tuneRecall: 0.97,
  underLoad: 'also',
  loadSoakMinutes: 2,
};

const CONTROL_RATE_HZ = 10;
const K = 10;
const POSE_RADIUS_M = 0.5;
const POSE_YAW_RAD = Math.PI / 6;
/** Candidate search settings for the memory's IVF-FLAT index, cheapest first. */
const TUNING_GRID: SearchSettings[] = [4, 6, 8, 10, 15, 20, 30].map((minimumNprobes) => ({ minimumNprobes }));
const log = (line: string) => process.stderr.write(`memory: ${line}\n`);

interface QueryTick {
  embedding: Float32Array;
  pose: Pose2D;
}

interface SimulatedTicks {
  written: TickRow[];
  poses: Map<string, Pose2D>;
  queries: QueryTick[];
}

export async function runMemoryBench(given: Partial<MemoryBenchOptions> = {}): Promise<BenchRow[]> {
  const options = { ...DEFAULTS, ...given };
  const full = options.underLoad !== 'only';
  const total = scaleName(options.totalRows);
  const scratch = mkdtempSync(join(tmpdir(), 'reins-bench-memory-'));
  try {
    const { perception, manifest } = await benchPerception(options, scratch);
    const ticks = await openTickMemory(join(scratch, 'memory'), perception, { maintenance: { periodMs: 0 } });
    const { memory, store, writer } = ticks;
    const sim = await simulateTicks(perception, ticks, options);
    const random = new SeededRandom(options.arenaSeed);
    const queries = shuffled(sim.queries, random);
    const needed = Math.max(full ? options.poseQueries : 0, options.tuneQueries + options.evalQueries);
    if (queries.length < needed) throw new Error(`only ${queries.length} held-out ticks for ${needed} queries: hold out more episodes (heldOutEvery)`);
    const rows: BenchRow[] = [];

    if (full) {
      log(`pose retrieval on ${sim.written.length} distinct ticks (exact search), ${options.poseQueries} held-out queries`);
      rows.push(row('pose-retrieval', 'fraction', await scorePoseRetrieval(ticks, sim.poses, queries.slice(0, options.poseQueries))));
    }
    const noise = noiseBank(sim.written, options.perturbationQuantile, random);
    const evalQueries = queries.slice(options.tuneQueries, options.tuneQueries + options.evalQueries).map((query) => query.embedding);
    if (full) {
      const mid = scaleName(options.midRows);
      await extend(writer, sim.written, noise, options.midRows, random);
      const midBuild = await timed(() => memory.maintenance.runOnce());
      const indexed = Object.values(midBuild.result.vectorIndexes).filter((outcome) => outcome !== 'too-small').length;
      log(`${options.midRows} rows in ${store.segments.length} segments, ${indexed} with a vector index; maintenance ${midBuild.secs.toFixed(1)} s`);
      const midSearch = await measureSearch(ticks, evalQueries);
      rows.push(latencyRow(`knn-${mid}`, midSearch.approxMs), row(`recall10-${mid}`, 'fraction', midSearch.recall));
    }

    const insertFrom = writer.status().written + writer.status().queued;
    const insertStart = performance.now();
    await extend(writer, sim.written, noise, options.totalRows, random);
    const insertRowsPerSec = (options.totalRows - insertFrom) / ((performance.now() - insertStart) / 1000);
    const { dropped, rejected } = writer.status();
    if (dropped + rejected > 0) throw new Error(`the writer dropped ${dropped} and refused ${rejected} rows: the figures would not describe a full table`);
    log(`insert: ${Math.round(insertRowsPerSec)} rows/s; compacting and indexing ${options.totalRows} rows`);
    const build = await timed(() => memory.maintenance.runOnce());

    const tuneQueries = queries.slice(0, options.tuneQueries).map((query) => query.embedding);
    store.searchSettings = await tuneSearch(ticks, tuneQueries, options.tuneRecall);
    log(`tuned on ${tuneQueries.length} queries: ${store.searchSettings.minimumNprobes} probes`);
    const idle = await measureSearch(ticks, evalQueries);
    rows.unshift(row('insert', 'rows/s', insertRowsPerSec));
    rows.push(latencyRow(`knn-${total}`, idle.approxMs), row(`recall10-${total}`, 'fraction', idle.recall));
    if (full) {
      const operatorOnly = await searchAll(ticks, evalQueries, false, { actedBy: ['operator'] });
      rows.push(latencyRow(`knn-${total}-filtered`, operatorOnly.latenciesMs), latencyRow(`knn-exact-${total}`, idle.exactMs));
    }
    rows.push(row(`index-build-${total}`, 's', build.secs));
    if (options.underLoad !== 'off') rows.push(...(await searchUnderLoad(ticks, evalQueries, idle.exactIds, total, options.loadSoakMinutes, manifest)));
    await ticks.close();
    await perception.close();
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The idle figures' queries again, with the memory's own search, while `reins soak` drives a core in a
 * child process: after its first minute (learners trained, maintenance run once), three passes, and
 * the soak core's CPU time over them. The soak is then left to finish and clean up.
 */
async function searchUnderLoad(
  ticks: TickMemory,
  queries: readonly Float32Array[],
  exactIds: readonly string[][],
  total: string,
  soakMinutes: number,
  manifest: string,
): Promise<BenchRow[]> {
  log(`starting reins soak --minutes ${soakMinutes} to search beside; searching after its first minute`);
  const load = await startSoakLoad({ minutes: soakMinutes, encoders: manifest });
  let searched: { latenciesMs: number[]; recall: number; cpuShare: number | undefined };
  try {
    await load.logged('soak window');
    const cpuStartSecs = load.cpuSecs();
    const startMs = performance.now();
    const passes = [await searchAll(ticks, queries, false), await searchAll(ticks, queries, false), await searchAll(ticks, queries, false)];
    const wallSecs = (performance.now() - startMs) / 1000;
    const cpuEndSecs = load.cpuSecs();
    searched = {
      latenciesMs: passes.flatMap((pass) => pass.latenciesMs),
      recall: recallAt(passes[0]!.ids, exactIds),
      cpuShare: cpuStartSecs === undefined || cpuEndSecs === undefined ? undefined : (cpuEndSecs - cpuStartSecs) / wallSecs,
    };
  } catch (error) {
    load.kill();
    throw error;
  }
  log(`searched under load; waiting for the soak to finish (exit ${await load.finished()})`);
  if (searched.cpuShare === undefined) log('core-cpu-share left out: no /proc/PID/stat to read the soak core’s CPU time from (Linux only)');
  return [
    latencyRow(`knn-${total}-under-load`, searched.latenciesMs),
    row(`recall10-${total}-under-load`, 'fraction', searched.recall),
    ...(searched.cpuShare === undefined ? [] : [row('core-cpu-share', 'cores', searched.cpuShare)]),
  ];
}

/** The smallest `--rows`: enough distinct ticks for the held-out queries. */
export const MIN_MEMORY_BENCH_ROWS = 10_000;

/** `reins bench memory --rows N`: the suite at another size (a short check), its distinct ticks and mid-size rows scaled with it. */
export function memoryBenchScale(totalRows: number): Pick<MemoryBenchOptions, 'totalRows' | 'midRows' | 'distinctTicks' | 'poseQueries'> {
  if (!(Number.isInteger(totalRows) && totalRows >= MIN_MEMORY_BENCH_ROWS))
    throw new RangeError(`rows must be a whole number ≥ ${MIN_MEMORY_BENCH_ROWS}, got ${totalRows}`);
  const distinctTicks = Math.min(DEFAULTS.distinctTicks, Math.max(8000, Math.floor(totalRows / 4)));
  return {
    totalRows,
    distinctTicks,
    midRows: Math.min(DEFAULTS.midRows, Math.max(distinctTicks, Math.floor(totalRows / 10))),
    poseQueries: Math.min(DEFAULTS.poseQueries, Math.floor(totalRows / 100)),
  };
}

/** 1,000,000 → `1m`, 100,000 → `100k`: the scale in a row's name. */
export function scaleName(rows: number): string {
  if (rows >= 1_000_000) return `${+(rows / 1_000_000).toFixed(2)}m`;
  if (rows >= 1000) return `${+(rows / 1000).toFixed(1)}k`;
  return String(rows);
}

function latencyRow(name: string, latenciesMs: readonly number[]): BenchRow {
  return { name, unit: 'ms', ...percentiles([...latenciesMs]), value: mean(latenciesMs) };
}

/** The default encoders; until models/manifest.json is built, randomly initialised ones of the same shapes. */
async function benchPerception(options: MemoryBenchOptions, scratch: string): Promise<{ perception: Perception; manifest: string }> {
  let manifest = options.encoders;
  if (manifest === DEFAULT_MANIFEST_PATH && !existsSync(manifest)) {
    manifest = writeRandomEncoders(join(scratch, 'encoders'), 1);
    log(`${DEFAULT_MANIFEST_PATH} is missing (the default encoders are not built yet): using randomly initialised encoders of the default shapes`);
  }
  const perception = await openEncoders(manifest, options.perception);
  log(`encoders ${perception.version}: ${perception.embeddingSize} floats`);
  return { perception, manifest };
}

/**
 * Drives episodes through the control loop until `distinctTicks` ticks are written: the scripted
 * operator drives even episodes alone and supervises the policy in odd ones (taking over when it
 * must). Held-out episodes are encoded the same way but only kept as queries.
 */
async function simulateTicks(perception: Perception, ticks: TickMemory, options: MemoryBenchOptions): Promise<SimulatedTicks> {
  let simTimeMs = Date.UTC(2025, 0, 1);
  const link = createSimLink({ arenaSeed: options.arenaSeed, episodeSeed: 1, epochMs: simTimeMs, autoReset: true });
  const loop = await createControlLoop(link, { rateHz: CONTROL_RATE_HZ, clock: () => simTimeMs, perception });
  const operator = new ScriptedOperator(link.robot.arena, { seed: options.arenaSeed });
  const periodMs = 1000 / CONTROL_RATE_HZ;
  const written: TickRow[] = [];
  const poses = new Map<string, Pose2D>();
  const queries: QueryTick[] = [];
  let episodeIndex = -1;
  let step = 0;
  let operatorHolds = false;
  let loggedTicks = 0;
  const startedMs = performance.now();
  loop.heartbeat();
  loop.setAutonomy(true);
  while (written.length < options.distinctTicks) {
    link.advance(periodMs / 1000);
    simTimeMs += periodMs;
    loop.heartbeat();
    const truth = link.robot.groundTruth();
    if (truth.episode.index !== episodeIndex) {
      episodeIndex = truth.episode.index;
      step = 0;
      if (operatorHolds) loop.handBack();
      operatorHolds = false;
    }
    if (episodeIndex % 2 === 0) {
      loop.operatorDrive(operator.drive(truth));
    } else {
      const decision = operator.supervise(truth, loop.lastSent()?.command ?? ZERO_DRIVE);
      if (decision.driver === 'operator') {
        if (!operatorHolds) loop.takeOver();
        operatorHolds = true;
        loop.operatorDrive(decision.command);
      } else if (operatorHolds) {
        loop.handBack();
        operatorHolds = false;
      }
    }
    const report = await loop.tick();
    const episodeId = `arena${options.arenaSeed}-episode${episodeIndex}`;
    if (episodeIndex % options.heldOutEvery === 0) {
      queries.push({ embedding: report.embedding.values.slice(), pose: truth.pose });
    } else {
      const tick = ticks.remember(report, { episodeId, step, robotId: link.robotName });
      if (tick) written.push(tick);
      poses.set(`${episodeId}#${step}`, truth.pose);
    }
    step++;
    if (written.length >= loggedTicks + 10_000) {
      loggedTicks = written.length;
      log(`${written.length} ticks written (${Math.round(written.length / ((performance.now() - startedMs) / 1000))} ticks/s)`);
    }
  }
  await loop.close();
  await link.close();
  await ticks.writer.flush();
  log(`${written.length} distinct ticks in ${episodeIndex} episodes, ${queries.length} held-out query ticks`);
  return { written, poses, queries };
}

/** Of the 10 nearest written ticks to each held-out tick, the fraction within 0.5 m and 30° of its true pose. */
async function scorePoseRetrieval(ticks: TickMemory, poses: Map<string, Pose2D>, queries: readonly QueryTick[]): Promise<number> {
  let close = 0;
  let total = 0;
  for (const query of queries) {
    for (const moment of await ticks.nearest({ embedding: query.embedding }, { k: K, exact: true })) {
      const pose = poses.get(`${moment.episodeId}#${moment.step}`)!;
      const yawRad = Math.abs(Math.atan2(Math.sin(pose.yawRad - query.pose.yawRad), Math.cos(pose.yawRad - query.pose.yawRad)));
      if (Math.hypot(pose.xM - query.pose.xM, pose.yM - query.pose.yM) <= POSE_RADIUS_M && yawRad <= POSE_YAW_RAD) close++;
      total++;
    }
  }
  return close / total;
}

/**
 * Noise vectors shaped like the ticks' spread (each dimension's σ in proportion to its standard
 * deviation), scaled so that their typical length is the given quantile of consecutive-tick distances.
 */
function noiseBank(ticks: readonly TickRow[], quantile: number, random: SeededRandom, size = 4096): Float32Array[] {
  const dims = ticks[0]!.embedding.length;
  const mean = new Float64Array(dims);
  const square = new Float64Array(dims);
  const stepDistances: number[] = [];
  ticks.forEach((tick, i) => {
    for (let d = 0; d < dims; d++) {
      mean[d]! += tick.embedding[d]! / ticks.length;
      square[d]! += tick.embedding[d]! ** 2 / ticks.length;
    }
    const previous = ticks[i - 1];
    if (previous?.episodeId === tick.episodeId) stepDistances.push(Math.hypot(...tick.embedding.map((value, d) => value - previous.embedding[d]!)));
  });
  const spread = Float64Array.from(mean, (m, d) => Math.sqrt(Math.max(0, square[d]! - m * m)));
  const targetLength = percentile(stepDistances, quantile);
  const scale = targetLength / Math.hypot(...spread);
  log(`perturbations of about ${targetLength.toFixed(3)} (the ${quantile} quantile of consecutive-tick distances)`);
  return Array.from({ length: size }, () => Float32Array.from(spread, (s) => s * scale * gaussian(random)));
}

/** Appends perturbed copies of the distinct ticks until the table holds `rows`, as a bulk producer would. */
async function extend(
  writer: MemoryWriter<TickRow>,
  ticks: readonly TickRow[],
  noise: readonly Float32Array[],
  rows: number,
  random: SeededRandom,
): Promise<void> {
  const CHUNK_ROWS = 5000;
  let next = writer.status().written + writer.status().queued;
  while (next < rows) {
    for (const end = Math.min(rows, next + CHUNK_ROWS); next < end; next++) {
      const source = ticks[next % ticks.length]!;
      const shift = noise[Math.floor(random.next() * noise.length)]!;
      const embedding = Float32Array.from(source.embedding, (value, d) => value + shift[d]!);
      writer.append({ ...source, episodeId: `${source.episodeId}~copy${Math.floor(next / ticks.length)}`, embedding });
    }
    await writer.waitForRoom();
    await new Promise(setImmediate);
  }
  await writer.flush();
}

interface SearchFigures {
  approxMs: number[];
  exactMs: number[];
  /** The exact search's 10 nearest per query: the truth recall is measured against. */
  exactIds: string[][];
  recall: number;
}

/** Latency of the memory's own (indexed) search and of exact search on the same queries, and recall@10. */
async function measureSearch(ticks: TickMemory, queries: readonly Float32Array[]): Promise<SearchFigures> {
  const exact = await searchAll(ticks, queries, true);
  await searchAll(ticks, queries.slice(0, 20), false); // warm the index's caches
  const approx = await searchAll(ticks, queries, false);
  // Two more passes for the latency figures only: on a shared machine one pass is at its neighbours' mercy.
  const again = [await searchAll(ticks, queries, false), await searchAll(ticks, queries, false)];
  const approxMs = [approx, ...again].flatMap((pass) => pass.latenciesMs);
  return { approxMs, exactMs: exact.latenciesMs, exactIds: exact.ids, recall: recallAt(approx.ids, exact.ids) };
}

async function searchAll(
  ticks: TickMemory,
  queries: readonly Float32Array[],
  exact: boolean,
  filter: TickFilter = {},
): Promise<{ latenciesMs: number[]; ids: string[][] }> {
  const latenciesMs: number[] = [];
  const ids: string[][] = [];
  for (const embedding of queries) {
    const startMs = performance.now();
    const moments = await ticks.nearest({ embedding }, { k: K, exact, filter });
    latenciesMs.push(performance.now() - startMs);
    ids.push(moments.map((moment) => `${moment.episodeId}#${moment.step}`));
  }
  return { latenciesMs, ids };
}

function recallAt(found: readonly string[][], truth: readonly (readonly string[])[]): number {
  let hits = 0;
  found.forEach((ids, i) => {
    const expected = new Set(truth[i]);
    hits += ids.filter((id) => expected.has(id)).length;
  });
  return hits / (truth.length * K);
}

/** The cheapest settings (fewest probes) that reach `targetRecall` on the tuning queries; else the most accurate. */
async function tuneSearch(ticks: TickMemory, queries: readonly Float32Array[], targetRecall: number): Promise<SearchSettings> {
  const truth = (await searchAll(ticks, queries, true)).ids;
  await searchAll(ticks, queries, false);
  let best: { settings: SearchSettings; recall: number } | undefined;
  for (const settings of TUNING_GRID) {
    ticks.store.searchSettings = settings;
    const run = await searchAll(ticks, queries, false);
    const recall = recallAt(run.ids, truth);
    log(`  ${settings.minimumNprobes} probes: recall ${recall.toFixed(3)}, p50 ${percentiles(run.latenciesMs).p50.toFixed(2)} ms`);
    if (best === undefined || recall > best.recall) best = { settings, recall };
    if (recall >= targetRecall) return settings;
  }
  return best!.settings;
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; secs: number }> {
  const startMs = performance.now();
  const result = await work();
  return { result, secs: (performance.now() - startMs) / 1000 };
}

function row(name: string, unit: string, value: number): BenchRow {
  return { name, unit, p50: null, p95: null, p99: null, value };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
}

function percentile(values: number[], quantile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? 0;
}

function gaussian(random: SeededRandom): number {
  return Math.sqrt(-2 * Math.log(1 - random.next())) * Math.cos(2 * Math.PI * random.next());
}

function shuffled<T>(items: readonly T[], random: SeededRandom): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random.next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
