// `reins bench recording`: what the MCAP recorder costs the core, as a percentage of one CPU core.
// The simulated robot's messages are rendered once, then played back at real-time rate twice per
// repetition, into the recorder and into nothing; both plays build and deliver the same messages, so
// the difference in process CPU time over the wall time is the recording alone (encoding, chunking,
// compression, CRCs, writes). Plays alternate off/on so drift in machine load hits both alike.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { twistFromDrive, type Received } from '../../core/messages.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { openRecorder, type MessageRecorder } from '../../session/recordingParts.ts';
import { createSimLink, type SimLinkOptions } from '../../sim/lockstepLink.ts';
import { ScriptedOperator } from '../../sim/scriptedOperator.ts';
import type { BenchRow } from './report.ts';

export interface RecordingBenchOptions {
  /** Wall seconds of real-time playback per measurement. */
  playSecs: number;
  /** Off/on pairs per sensor setting. */
  repetitions: number;
  /** Simulated seconds rendered once and looped (the camera's views change as the robot drives). */
  renderedSimSecs: number;
}

export const DEFAULT_RECORDING_BENCH_OPTIONS: Readonly<RecordingBenchOptions> = Object.freeze({ playSecs: 10, repetitions: 5, renderedSimSecs: 4 });

type SensorSettings = Pick<SimLinkOptions, 'camera' | 'scan'>;

const SETTINGS: Readonly<Record<'default' | 'full', SensorSettings>> = {
  default: { camera: {}, scan: {} },
  full: { camera: { widthPx: 640, heightPx: 480, rateHz: 30 }, scan: { beams: 720, rateHz: 30 } },
};

const CONTROL_PERIOD_SECS = 0.1;

interface TimedMessage {
  atSecs: number;
  received: Received;
}

export async function runRecordingBench(options: RecordingBenchOptions = DEFAULT_RECORDING_BENCH_OPTIONS): Promise<BenchRow[]> {
  const folder = await mkdtemp(join(tmpdir(), 'reins-recording-bench-'));
  const rows: BenchRow[] = [];
  let dropped = 0;
  try {
    for (const [name, settings] of Object.entries(SETTINGS)) {
      const messages = renderMessages(settings, options.renderedSimSecs);
      const percents: number[] = [];
      // Repetition 0 warms up (JIT, the zstd module, the page cache) and is not counted.
      for (let repetition = 0; repetition <= options.repetitions; repetition++) {
        const path = join(folder, `${name}-${repetition}.mcap`);
        const off = await play(messages, options, undefined);
        const recorder = await openRecorder(path);
        const on = await play(messages, options, recorder);
        await rm(path, { force: true });
        if (repetition === 0) continue;
        dropped += recorder.stats().dropped;
        const percent = ((on.cpuSecs - off.cpuSecs) / on.wallSecs) * 100;
        percents.push(percent);
        process.stderr.write(
          `recording ${name} #${repetition}: ${on.delivered} messages in ${on.wallSecs.toFixed(1)} s; CPU off ${((off.cpuSecs / off.wallSecs) * 100).toFixed(1)} %, on ${((on.cpuSecs / on.wallSecs) * 100).toFixed(1)} % of a core → recording ${percent.toFixed(2)} %\n`,
        );
      }
      const spread = percentiles(percents);
      rows.push({ name: `recorder-cpu-${name}`, unit: '% of a core', ...spread, value: spread.p50 });
    }
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  rows.push({ name: 'dropped-messages', unit: 'messages', p50: null, p95: null, p99: null, value: dropped });
  return rows;
}

/** The simulated robot's messages over a span of simulated time, every sensor subscribed, the scripted operator driving. */
function renderMessages(settings: SensorSettings, simSecs: number): TimedMessage[] {
  const link = createSimLink({ arenaSeed: 1, episodeSeed: 1, epochMs: 0, ...settings });
  const messages: TimedMessage[] = [];
  for (const { topic } of link.topics()) link.subscribe(topic, (received) => messages.push({ atSecs: received.receiveTimeMs / 1000, received }));
  const operator = new ScriptedOperator(link.robot.arena, { seed: 1 });
  for (let elapsedSecs = 0; elapsedSecs < simSecs - 1e-9; elapsedSecs += CONTROL_PERIOD_SECS) {
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive(operator.drive(link.robot.groundTruth())));
    link.advance(CONTROL_PERIOD_SECS);
  }
  void link.close();
  return messages;
}

interface PlayResult {
  cpuSecs: number;
  wallSecs: number;
  delivered: number;
}

/**
 * Hands the messages out at their real-time moments (looping), each as a fresh message stamped
 * now, to the recorder when there is one. With a recorder, the measurement includes its closing
 * (the last chunk and the summary), so no work it was given escapes the window.
 */
async function play(messages: readonly TimedMessage[], options: RecordingBenchOptions, recorder: MessageRecorder | undefined): Promise<PlayResult> {
  const loopSecs = options.renderedSimSecs;
  const cpuBefore = process.cpuUsage();
  const startMs = performance.now();
  const epochMs = Date.now();
  let delivered = 0;
  // Without a recorder the message is still built and handed on (kept, so it cannot be optimised away).
  let lastHandedOn: Received | undefined;
  const handOn = recorder === undefined ? (received: Received) => void (lastHandedOn = received) : (received: Received) => void recorder.record(received);
  for (let next = 0; ; next++) {
    const message = messages[next % messages.length]!;
    const dueSecs = Math.floor(next / messages.length) * loopSecs + message.atSecs;
    if (dueSecs >= options.playSecs) break;
    const waitMs = dueSecs * 1000 - (performance.now() - startMs);
    if (waitMs > 1) await sleep(waitMs);
    const received: Received = { ...message.received, receiveTimeMs: epochMs + dueSecs * 1000, sourceTimeMs: epochMs + dueSecs * 1000 };
    handOn(received);
    delivered++;
  }
  await recorder?.close();
  const wallSecs = (performance.now() - startMs) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (delivered > 0 && recorder === undefined && lastHandedOn === undefined) throw new Error('the playback handed nothing on');
  return { cpuSecs: (cpu.user + cpu.system) / 1e6, wallSecs, delivered };
}
