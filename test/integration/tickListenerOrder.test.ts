// The order the tick's listeners run in cannot change what is kept of a session (DESIGN §2 step 9).
// The listeners a live core hangs on the loop — the session stores (MCAP recording and memory rows)
// and the learning session, whose learner here promotes a new policy version inside its own listener
// on the tick the operator takes over — run over 300 lockstep ticks of the simulated robot, once in
// the order they registered and once reversed. Every memory row and every MCAP record must match.
import { wallSchedule } from '../../main/core/runtime/schedule.ts';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TickReport } from '../../main/core/tickReport.ts';
import { DEFAULT_TOPIC_MAP } from '../../main/core/link.ts';
import { ReactiveBaselinePolicy } from '../../main/learning/reactiveBaselinePolicy.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import { Memory } from '../../main/memory/memory.ts';
import { ticksFromArrow, type TickScalars } from '../../main/memory/tickRead.ts';
import type { TickRow } from '../../main/memory/tickSchema.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { RecordingReader } from '../../main/recording/recordingReader.ts';
import { startLearning } from '../../main/session/learningWiring.ts';
import { openSessionStores } from '../../main/session/sessionStores.ts';
import { VersionPerTakeover } from '../fakes/versionPerTakeover.ts';
import { lockstepLoop } from '../support/lockstepLoop.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

const TICKS = 300;
/** Takeovers while the policy drives: by driving, by the button; each ends with a hand-back. */
const TAKEOVERS = [
  { atStep: 70, handBackStep: 90, by: 'drive' },
  { atStep: 140, handBackStep: 160, by: 'button' },
  { atStep: 200, handBackStep: 215, by: 'drive' },
] as const;

type ListenerOrder = 'registration' | 'reversed';
type StoredRow = TickScalars & Pick<TickRow, 'embedding' | 'latent'>;

interface SessionKept {
  episodeId: string;
  recordingPath: string;
  rows: StoredRow[];
  /** Every message of the recording, in log-time order, as `topic @ log time: payload`. */
  records: string[];
  offeredVersions: string[];
  loopAlerts: string[];
}

/**
 * Takes the loop's onTick before anything registers: the listeners go into a list, and one
 * dispatcher calls them in the order asked for. The loop itself still catches what a listener throws.
 */
function dispatchTickListeners(loop: ControlLoop, order: ListenerOrder): void {
  const listeners: Array<(report: Readonly<TickReport>) => void> = [];
  loop.onTick((report) => {
    const inOrder = order === 'reversed' ? [...listeners].reverse() : [...listeners];
    for (const listener of inOrder) listener(report);
  });
  loop.onTick = (listener) => {
    listeners.push(listener);
    return () => {
      const index = listeners.indexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    };
  };
}

/** What the operator does before tick `step`, through the loop as the cockpit does. */
function operatorBefore(step: number, loop: ControlLoop): void {
  const arc = { linearMps: 0.25, angularRadps: step % 20 < 10 ? 0.5 : -0.5 };
  // Autonomy off: the operator drives the robot out, stops, and turns autonomy on.
  if (step >= 10 && step < 30) loop.operatorDrive(arc);
  if (step === 30) {
    loop.operatorDrive({ linearMps: 0, angularRadps: 0 });
    loop.setAutonomy(true);
  }
  for (const takeover of TAKEOVERS) {
    if (step === takeover.atStep && takeover.by === 'button') loop.takeOver();
    if (step >= takeover.atStep && step < takeover.handBackStep) loop.operatorDrive(arc);
    if (step === takeover.handBackStep) loop.handBack();
  }
  // Autonomy off, an e-stop and its release, and the operator driving to the end.
  if (step === 250) loop.setAutonomy(false);
  if (step === 260) loop.estop();
  if (step === 270) loop.releaseEStop();
  if (step >= 280) loop.operatorDrive(arc);
}

/** A value with the run's own episode name replaced, so two runs' records can be compared. */
function withoutEpisode(value: unknown, episodeId: string): unknown {
  if (value === episodeId) return '<episode>';
  if (Array.isArray(value)) return value.map((item) => withoutEpisode(item, episodeId));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutEpisode(item, episodeId)]));
  }
  return value;
}

/**
 * A decoded payload as text: byte and number arrays (camera images, scans) as base64, and a payload
 * longer than a line as its digest, so a difference reads as the record it is in.
 */
function payloadText(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (ArrayBuffer.isView(item)) return `bytes:${Buffer.from(item.buffer, item.byteOffset, item.byteLength).toString('base64')}`;
    if (typeof item === 'bigint') return `${item}n`;
    return item;
  });
  return text.length <= 400 ? text : `sha256:${createHash('sha256').update(text).digest('hex')} (${text.length} chars)`;
}

/** One session as a live core keeps it: the loop over the simulated robot, the stores, the learning session. */
async function keepSession(order: ListenerOrder, folder: string): Promise<SessionKept> {
  const perception = await loadPerception(testEncoderManifest());
  const initialPolicy = new ReactiveBaselinePolicy();
  const rig = await lockstepLoop({ perception, policy: initialPolicy });
  const { loop, link } = rig;
  dispatchTickListeners(loop, order);
  const log = pino({ level: 'silent' });
  const memoryUri = join(folder, 'memory');
  // Registered in the order coreSession.ts registers them: the stores, then the learning session.
  const stores = await openSessionStores(
    link,
    loop,
    perception,
    { recordings: join(folder, 'recordings'), record: true, memory: memoryUri, remember: true },
    log,
  );
  const improver = new VersionPerTakeover();
  stores.setRewardEstimator((embedding) => improver.rewardEstimate(embedding));
  const learning = await startLearning({
    loop,
    link,
    initialPolicy,
    improver,
    recording: stores.recording!,
    memoryUri,
    tickSpace: stores.memory!.space,
    topics: () => ({ ...DEFAULT_TOPIC_MAP }),
    log,
    episodeId: stores.episodeId,
    schedule: wallSchedule(rig.now),
  });
  for (let step = 0; step < TICKS; step++) {
    operatorBefore(step, loop);
    await rig.ticks(1);
  }
  const loopAlerts = loop.alerts().map((alert) => alert.key);
  // As a live core shuts down: the loop (the robot's last zero), the learning session, then the stores.
  await loop.close();
  await learning.close();
  await stores.close();
  await link.close();

  const recordingPath = stores.recording!.path;
  const memory = await Memory.open({ uri: memoryUri, maintenance: { periodMs: 0 } });
  let rows: StoredRow[];
  try {
    const store = await memory.ticks(stores.memory!.space);
    rows = (ticksFromArrow(await store.query()) as StoredRow[]).sort((a, b) => a.step - b.step);
  } finally {
    await memory.close();
  }
  const reader = await RecordingReader.open(recordingPath);
  const records: string[] = [];
  try {
    for await (const message of reader.messages()) {
      records.push(`${message.topic} @ ${message.logTimeMs}: ${payloadText(withoutEpisode(message.value, stores.episodeId))}`);
    }
  } finally {
    await reader.close();
  }
  return { episodeId: stores.episodeId, recordingPath, rows, records, offeredVersions: [...improver.offered], loopAlerts };
}

/** A row without the columns that name the run itself: its episode (named at its start) and its recording file. */
function runFree({ episodeId: _episode, mcapFile: _file, ...row }: StoredRow) {
  return row;
}

let folder: string;
let inOrder: SessionKept;
let reversed: SessionKept;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-listener-order-'));
  inOrder = await keepSession('registration', join(folder, 'registration'));
  reversed = await keepSession('reversed', join(folder, 'reversed'));
}, 60_000);

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('the order of the tick listeners', () => {
  it('keeps every tick in both runs, pointing at the run’s own episode and recording, with no listener failing', () => {
    for (const run of [inOrder, reversed]) {
      expect(run.rows.map((row) => row.step)).toEqual(Array.from({ length: TICKS }, (_, step) => step));
      expect(new Set(run.rows.map((row) => row.episodeId))).toEqual(new Set([run.episodeId]));
      expect(new Set(run.rows.map((row) => row.mcapFile))).toEqual(new Set([run.recordingPath]));
      expect(run.loopAlerts.filter((key) => key === 'tick-listener' || key.startsWith('learning-'))).toEqual([]);
    }
  });

  it('gives identical memory rows when reversed', () => {
    expect(reversed.rows.map(runFree)).toEqual(inOrder.rows.map(runFree));
  });

  it('gives identical MCAP records (topic, log time, payload) when reversed', () => {
    expect(reversed.records.length).toBe(inOrder.records.length);
    expect(reversed.records).toEqual(inOrder.records);
  });

  it('compares runs where versions change inside a tick and both the operator and the policy drive', () => {
    const rows = inOrder.rows;
    const versions = new Set(rows.map((row) => row.policyVersion));
    expect(versions.size).toBeGreaterThanOrEqual(2);
    expect(inOrder.offeredVersions).toEqual(['scripted-2', 'scripted-3', 'scripted-4']);
    expect(new Set(rows.map((row) => row.actedBy))).toEqual(new Set(['idle', 'operator', 'policy', 'safety']));
    expect(new Set(rows.filter((row) => row.actedBy === 'policy').map((row) => row.policyVersion))).toEqual(
      new Set(['reactive-baseline-1', ...inOrder.offeredVersions]),
    );
    // Each takeover tick promoted a version inside its listeners: that tick keeps the version that held it.
    for (const [index, { atStep }] of TAKEOVERS.entries()) {
      expect(rows[atStep - 1]!.actedBy).toBe('policy');
      expect(rows[atStep]!.actedBy).toBe('operator');
      expect(rows[atStep]!.policyVersion).toBe(rows[atStep - 1]!.policyVersion);
      expect(rows[atStep + 1]!.policyVersion).toBe(inOrder.offeredVersions[index]);
    }
    // The recording holds the sensors, every command with its driver, each tick, and the interventions taught.
    const topics = new Set(inOrder.records.map((record) => record.slice(0, record.indexOf(' @ '))));
    expect([...topics]).toEqual(
      expect.arrayContaining([
        '/camera/image_raw',
        '/scan',
        '/joint_states',
        '/imu',
        '/odom',
        '/cmd_vel',
        '/reins/command_sent',
        '/reins/tick',
        '/reins/feedback',
      ]),
    );
    expect(inOrder.records.filter((record) => record.startsWith('/reins/feedback @') && record.includes('"kind":"intervention"'))).toHaveLength(
      TAKEOVERS.length,
    );
    const ticks = inOrder.records.filter((record) => record.startsWith('/reins/tick @'));
    expect(ticks).toHaveLength(TICKS);
    expect(ticks.map((record) => /"policyVersion":"([^"]+)"/.exec(record)?.[1])).toEqual(rows.map((row) => row.policyVersion));
  });
});
