// `reins bench tick`: the control tick's latency with the full pipeline running (synchroniser,
// perception, policy driving, arbiter, safety, link) against the simulated robot in lockstep.
import { createSimLink } from '../../sim/lockstepLink.ts';
import { percentiles } from '../../loop/latencyWindow.ts';
import { createControlLoop } from '../wiring.ts';
import type { BenchRow } from './report.ts';

export interface TickBenchOptions {
  ticks: number;
  warmupTicks: number;
  rateHz: number;
}

export function runTickBench(options: TickBenchOptions = { ticks: 3000, warmupTicks: 100, rateHz: 10 }): BenchRow[] {
  let simTimeMs = Date.now();
  const link = createSimLink({ epochMs: simTimeMs });
  const clock = () => simTimeMs;
  const loop = createControlLoop(link, { rateHz: options.rateHz, clock });
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
    const report = loop.tick();
    if (i < options.warmupTicks) continue;
    durationsMs.push(report.durationMs);
    if (report.driver === 'policy') policyTicks++;
  }
  const wallSecs = (performance.now() - wallStartMs) / 1000;
  loop.close();
  void link.close();
  if (policyTicks !== options.ticks) throw new Error(`the policy drove only ${policyTicks} of ${options.ticks} ticks: the bench is not measuring the full pipeline`);
  const tick = percentiles(durationsMs);
  const meanMs = durationsMs.reduce((a, b) => a + b, 0) / durationsMs.length;
  return [
    { name: 'tick', unit: 'ms', ...tick, value: meanMs },
    { name: 'tick-capacity', unit: 'ticks/s', p50: null, p95: null, p99: null, value: 1000 / meanMs },
    { name: 'sim-lockstep', unit: 'x realtime', p50: null, p95: null, p99: null, value: (options.ticks + options.warmupTicks) / options.rateHz / wallSecs },
  ];
}
