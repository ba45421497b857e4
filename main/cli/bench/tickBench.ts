// `reins bench tick`: the control tick's latency with the full pipeline running (synchroniser,
// perception's ONNX encoders, policy driving, arbiter, safety, link) against the simulated robot in lockstep.
import { createSimLink } from '../../sim/lockstepLink.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { DEFAULT_MANIFEST_PATH, openEncoders, type PerceptionOptions } from '../../session/encoders.ts';
import { createControlLoop } from '../../session/loopWiring.ts';
import type { BenchRow } from './report.ts';

export interface TickBenchOptions {
  ticks: number;
  warmupTicks: number;
  rateHz: number;
  /** The encoder manifest (default: models/manifest.json) and how its encoders run. */
  encoders: string;
  perception: Partial<PerceptionOptions>;
}

const DEFAULTS: TickBenchOptions = { ticks: 3000, warmupTicks: 100, rateHz: 10, encoders: DEFAULT_MANIFEST_PATH, perception: {} };

export async function runTickBench(given: Partial<TickBenchOptions> = {}): Promise<BenchRow[]> {
  const options = { ...DEFAULTS, ...given };
  let simTimeMs = Date.now();
  const link = createSimLink({ epochMs: simTimeMs });
  const clock = () => simTimeMs;
  const perception = await openEncoders(options.encoders, options.perception);
  const status = perception.status();
  process.stderr.write(
    `tick: encoders ${status.version}, ${status.modalities.map((m) => `${m.modality} ${m.state}${m.provider ? ` (${m.provider})` : ''}`).join(', ')}; intra-op threads ${status.intraOpThreads}, inter-op threads ${status.interOpThreads}\n`,
  );
  const loop = await createControlLoop(link, { rateHz: options.rateHz, clock, perception });
  const periodMs = 1000 / options.rateHz;
  loop.heartbeat();
  loop.setAutonomy(true);
  const durationsMs: number[] = [];
  let policyTicks = 0;
  const wallStartMs = performance.now();
  for (let i = 0; i < options.warmupTicks + options.ticks; i++) {
    link.advance(periodMs / 1000);
    simTimeMs += periodMs;
    loop.heartbeat();
    const report = await loop.tick();
    if (i < options.warmupTicks) continue;
    durationsMs.push(report.durationMs);
    if (report.driver === 'policy') policyTicks++;
  }
  const wallSecs = (performance.now() - wallStartMs) / 1000;
  const notEncoding = loop.perceptionStatus().modalities.filter((m) => m.state !== 'on' && m.state !== 'not-configured');
  await loop.close();
  await link.close();
  if (notEncoding.length > 0)
    throw new Error(
      `not every encoder ran (${notEncoding.map((m) => `${m.modality}: ${m.problem ?? m.state}`).join('; ')}): the bench is not measuring the full pipeline`,
    );
  if (policyTicks !== options.ticks)
    throw new Error(`the policy drove only ${policyTicks} of ${options.ticks} ticks: the bench is not measuring the full pipeline`);
  const tick = percentiles(durationsMs);
  const meanMs = durationsMs.reduce((a, b) => a + b, 0) / durationsMs.length;
  return [
    { name: 'tick', unit: 'ms', ...tick, value: meanMs },
    { name: 'tick-capacity', unit: 'ticks/s', p50: null, p95: null, p99: null, value: 1000 / meanMs },
    { name: 'sim-lockstep', unit: 'x realtime', p50: null, p95: null, p99: null, value: (options.ticks + options.warmupTicks) / options.rateHz / wallSecs },
  ];
}
