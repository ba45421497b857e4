// `reins bench perception`: what the encoders cost per tick on frames of the simulated robot driven
// through its arena by the scripted operator — each encoder alone (its preprocessing and its run),
// and the whole fused step as the control loop calls it — on the CPU, and on the GPU where CUDA
// loads; then the thread settings, and the probes of how useful the embedding is (the goal and obstacles;
// the dock pose and the corridor's clearance).
import type { ObservationFrame } from '../../core/frame.ts';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive, type DriveCommand } from '../../core/messages.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { createSynchroniser } from '../../session/loopWiring.ts';
import { DEFAULT_MANIFEST_PATH, openEncoders, type PerceptionOptions } from '../../session/encoders.ts';
import { gpuEncodersInstalled, openEncoderAlone } from '../../session/perceptionParts.ts';
import { type PerceptionStatus, MODALITIES } from '../../core/perception.ts';
import { createSimLink } from '../../sim/lockstepLink.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import { runPerceptionProbes } from './perceptionProbes.ts';
import { runTaskProbes } from './taskProbes.ts';
import type { BenchRow } from './report.ts';

export interface PerceptionBenchOptions {
  /** Timed runs per row, after the warm-up. */
  runs: number;
  warmupRuns: number;
  /** Distinct frames the runs cycle through. */
  frames: number;
  encoders: string;
  perception: Partial<PerceptionOptions>;
  /** The probe rows take minutes; off for a quick look at latency. */
  probes: boolean;
}

const DEFAULTS: PerceptionBenchOptions = { runs: 2000, warmupRuns: 100, frames: 200, encoders: DEFAULT_MANIFEST_PATH, perception: {}, probes: true };
const CONTROL_PERIOD_SECS = 0.1;
type ProviderPreference = PerceptionOptions['provider'];
const log = (line: string) => process.stderr.write(`${line}\n`);

interface TimedFrame {
  frame: ObservationFrame;
  lastCommand: DriveCommand;
}

/** Frames as the control loop would see them at 10 Hz while the scripted operator drives the sim. */
function simFrames(count: number): TimedFrame[] {
  const link = createSimLink({ arenaSeed: 7, episodeSeed: 7, epochMs: 0 });
  const synchroniser = createSynchroniser(link);
  const operator = new ScriptedOperator(link.robot.arena, { seed: 7 });
  const frames: TimedFrame[] = [];
  let lastCommand: DriveCommand = { linearMps: 0, angularRadps: 0 };
  for (let i = 0; frames.length < count; i++) {
    link.advance(CONTROL_PERIOD_SECS);
    const frame = synchroniser.frame((i + 1) * CONTROL_PERIOD_SECS * 1000);
    if (i >= 5) frames.push({ frame, lastCommand });
    lastCommand = operator.drive(link.robot.groundTruth());
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(lastCommand));
  }
  synchroniser.close();
  void link.close();
  const incomplete = frames.filter(({ frame }) => frame.missing.some((role) => role !== 'odom'));
  if (incomplete.length > 0) throw new Error(`${incomplete.length} of ${frames.length} sim frames miss a stream: the bench would not run every encoder`);
  return frames;
}

async function timeRuns(options: PerceptionBenchOptions, frames: readonly TimedFrame[], step: (frame: TimedFrame) => Promise<unknown>): Promise<number[]> {
  const durationsMs: number[] = [];
  for (let i = 0; i < options.warmupRuns + options.runs; i++) {
    const frame = frames[i % frames.length]!;
    const startedMs = performance.now();
    await step(frame);
    if (i >= options.warmupRuns) durationsMs.push(performance.now() - startedMs);
  }
  return durationsMs;
}

function latencyRow(name: string, durationsMs: readonly number[]): BenchRow {
  return { name, unit: 'ms', ...percentiles([...durationsMs]), value: durationsMs.reduce((a, b) => a + b, 0) / durationsMs.length };
}

/** Each encoder alone: preparing its input from the frame, and its run. */
async function encoderRows(options: PerceptionBenchOptions, frames: readonly TimedFrame[], provider: ProviderPreference, suffix: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const modality of MODALITIES) {
    const encoder = await openEncoderAlone(options.encoders, modality, { ...options.perception, provider });
    if (!encoder) continue;
    try {
      const durationsMs = await timeRuns(options, frames, async ({ frame, lastCommand }) => {
        const run = encoder.encode(frame, lastCommand);
        if (!run) throw new Error(`${modality}: the frame has no input for it`);
        await run;
      });
      rows.push(latencyRow(`encoder-${modality}${suffix}`, durationsMs));
    } finally {
      await encoder.close();
    }
  }
  return rows;
}

/** The whole step as the control loop runs it: every encoder, and the fusion. */
async function fusedRow(
  options: PerceptionBenchOptions,
  frames: readonly TimedFrame[],
  provider: ProviderPreference,
  suffix: string,
): Promise<{ row: BenchRow; status: PerceptionStatus }> {
  const perception = await openEncoders(options.encoders, { ...options.perception, provider });
  try {
    const status = perception.status();
    const off = status.modalities.filter((m) => m.state === 'off');
    if (off.length > 0) throw new Error(`encoders refused: ${off.map((m) => m.problem).join('; ')}`);
    const durationsMs = await timeRuns(options, frames, ({ frame, lastCommand }) => perception.encode(frame, lastCommand));
    return { row: latencyRow(`fused-step${suffix}`, durationsMs), status: perception.status() };
  } finally {
    await perception.close();
  }
}

function settingsLine(status: PerceptionStatus): string {
  const providers = [...new Set(status.modalities.flatMap((m) => (m.provider ? [m.provider] : [])))].join(' + ') || 'none';
  return `encoders ${status.version}: provider ${providers}; intra-op threads ${status.intraOpThreads}, inter-op threads ${status.interOpThreads}${status.providerNote ? ` (${status.providerNote})` : ''}`;
}

export async function runPerceptionBench(given: Partial<PerceptionBenchOptions> = {}): Promise<BenchRow[]> {
  const options = { ...DEFAULTS, ...given };
  const frames = simFrames(options.frames);
  log(`perception: ${frames.length} frames of the simulated robot, ${options.runs} timed runs per row`);

  const cpu = await fusedRow(options, frames, 'cpu', '');
  log(`perception (CPU rows): ${settingsLine(cpu.status)}`);
  const rows: BenchRow[] = [...(await encoderRows(options, frames, 'cpu', '')), cpu.row];

  if (gpuEncodersInstalled()) {
    const gpu = await fusedRow(options, frames, 'auto', '-gpu');
    log(`perception (GPU rows): ${settingsLine(gpu.status)}`);
    if (gpu.status.modalities.every((m) => m.provider === undefined || m.provider === 'cuda')) {
      rows.push(...(await encoderRows(options, frames, 'auto', '-gpu')), gpu.row);
    } else {
      log('perception: no -gpu rows: the CUDA execution provider did not load for every encoder');
    }
  } else {
    log('perception: no -gpu rows: the CUDA execution provider is not installed (npx reins setup gpu)');
  }

  const threads = (name: string, value: number): BenchRow => ({ name, unit: 'threads', p50: null, p95: null, p99: null, value });
  rows.push(threads('intra-op-threads', cpu.status.intraOpThreads), threads('inter-op-threads', cpu.status.interOpThreads));

  // ── Probe rows (the lead's main/cli/bench/perceptionProbes.ts): is the embedding useful? ──────────
  // Then the new tasks' (taskProbes.ts): does it resolve the dock pose and the corridor's clearance?
  if (options.probes) rows.push(...(await runPerceptionProbes(options.encoders)), ...(await runTaskProbes(options.encoders)));
  return rows;
}
