// Review mode against a real recorded session: the simulated robot driven in lockstep through the
// real loop, recorded to MCAP and kept in a LanceDB memory by the same stores `reins start` uses;
// then that log replayed through a second loop behind the review API. Checks that a replay sends
// nothing and refuses driving, that seeking shows the moment, that the timeline marks the takeover,
// and that "find similar moments" finds the session's own moments through the memory.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CockpitService } from '../../main/api/cockpitService.ts';
import { rescore } from '../../main/session/reviewCore.ts';
import { ReviewSession } from '../../main/session/reviewSession.ts';
import { openSessionStores } from '../../main/session/sessionStores.ts';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import { Memory } from '../../main/memory/memory.ts';
import { sqlColumn, sqlString } from '../../main/memory/sqlFilter.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import type { Perception } from '../../main/core/perception.ts';
import { openReviewLog } from '../../main/recording/reviewLog.ts';
import { lockstepLoop } from '../support/lockstepLoop.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

let folder: string;
let perception: Perception;
let recordingPath: string;
let takeOverAtMs: number;
let memory: Memory;
let review: ReviewSession;
let loop: ControlLoop;
let link: SwitchableLink;
let service: CockpitService;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-review-'));
  perception = await loadPerception(testEncoderManifest());
  const memoryUri = join(folder, 'memory');
  // 20 s of a session: the robot idle, then the operator takes over and drives a loop.
  const live = await lockstepLoop({ perception });
  const stores = await openSessionStores(
    live.link,
    live.loop,
    perception,
    { recordings: join(folder, 'recordings'), record: true, memory: memoryUri, remember: true },
    pino({ level: 'silent' }),
  );
  recordingPath = stores.recording!.path;
  await live.ticks(60);
  takeOverAtMs = live.now();
  stores.recording!.recordOperatorInput({ action: 'take-over' }, takeOverAtMs);
  live.loop.takeOver(live.now());
  for (let i = 0; i < 140; i++) {
    live.loop.operatorDrive({ linearMps: 0.3, angularRadps: i < 70 ? 0.4 : -0.4 }, live.now());
    await live.ticks(1);
  }
  live.loop.operatorDrive({ linearMps: 0, angularRadps: 0 }, live.now());
  await live.ticks(5);
  await stores.close();
  await live.loop.close();

  // The live loop released its encoders on close; the review loads its own, as `reins review` does.
  perception = await loadPerception(testEncoderManifest());
  const log = await openReviewLog(recordingPath);
  const replay = ReviewSession.replayOf(log);
  link = new SwitchableLink(replay.replay, undefined, replay.topics);
  loop = await createControlLoop(link, { perception });
  memory = await Memory.open({ uri: memoryUri, maintenance: { periodMs: 0 } });
  review = ReviewSession.attach(link, log, { openLog: openReviewLog, perception, memory });
  service = new CockpitService(link, loop, Date.now, { review });
}, 120_000);

afterAll(async () => {
  await loop?.close();
  await review?.close();
  await link?.close();
  await memory?.close();
  await rm(folder, { recursive: true, force: true });
});

describe('review mode on a recorded session', () => {
  it('says it is a review of the log, from its first to its last message, paused at the start', () => {
    const status = service.state().review!;
    expect(status.fileName).toBe(recordingPath.split('/').pop());
    expect(status.endMs - status.startMs).toBeGreaterThan(19_000);
    expect(status).toMatchObject({ playing: false, speed: 1, positionMs: status.startMs, problems: [], rescoring: false });
    expect(service.state().robotName).toMatch(/^replay of /);
  });

  it('refuses driving in words and sends nothing; letting go and the e-stop are accepted', () => {
    for (const request of [{ type: 'drive', linearMps: 0.2, angularRadps: 0 }, { type: 'take-over' }, { type: 'set-autonomy', enabled: true }] as const) {
      const result = service.handle(request);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(/sends no commands: a replay is for review/);
    }
    expect(service.handle({ type: 'drive', linearMps: 0, angularRadps: 0 }).ok).toBe(true);
    expect(service.handle({ type: 'set-autonomy', enabled: false }).ok).toBe(true);
    expect(service.handle({ type: 'estop' }).ok).toBe(true);
    expect(link.capabilities.sendsCommands).toBe(false);
  });

  it('marks the takeover on the timeline and plots the robot’s speed', async () => {
    const timeline = await service.reviewTimeline();
    if (!timeline.ok) throw new Error(timeline.error.message);
    expect(timeline.body.markers).toContainEqual({ kind: 'intervention', atMs: takeOverAtMs, label: 'Operator took over' });
    const speed = timeline.body.series.find((series) => series.name === 'Speed')!;
    expect(Math.max(...speed.values.map(Number))).toBeGreaterThan(0.2);
  });

  it('seeking shows the camera and scan of that moment at once, without playing', async () => {
    service.handle({ type: 'replay-seek', atMs: takeOverAtMs + 5000 });
    await until(() => service.cameraPreview() !== undefined && service.scanPreview() !== undefined);
    expect(service.state().review).toMatchObject({ positionMs: takeOverAtMs + 5000, playing: false });
  });

  it('plays at the chosen speed and pauses where it is', async () => {
    service.handle({ type: 'replay-speed', speed: 8 });
    service.handle({ type: 'replay-play' });
    const from = service.state().review!.positionMs;
    await until(() => service.state().review!.positionMs > from + 500);
    service.handle({ type: 'replay-pause' });
    const paused = service.state().review!;
    expect(paused.playing).toBe(false);
    expect(paused.speed).toBe(8);
    expect(service.state().review!.positionMs).toBe(paused.positionMs);
  });

  it('finds similar moments in memory, never the moment itself, and opens one', async () => {
    const atMs = takeOverAtMs + 3000;
    const found = await service.similarMoments(atMs);
    if (!found.ok) throw new Error(found.error.message);
    expect(found.body.matches.length).toBeGreaterThan(0);
    for (const match of found.body.matches) {
      expect(match.sameFile).toBe(true);
      expect(Math.abs(match.atMs - atMs)).toBeGreaterThanOrEqual(3000);
    }
    const distances = found.body.matches.map((match) => match.distance);
    expect([...distances].sort((a, b) => a - b)).toEqual(distances);
    const match = found.body.matches[0]!;
    expect(service.handle({ type: 'open-moment', file: match.file, atMs: match.atMs }).ok).toBe(true);
    expect(service.state().review!.positionMs).toBe(match.atMs);
  });

  it('writes nothing to memory unless asked to re-score; re-scored rows point into the log at their log time', async () => {
    const space = (await memory.tickSpaces())[0]!;
    const store = await memory.ticks(space);
    const before = await store.countRows();
    loop.start();
    // Played through the running loop without --rescore: the memory keeps what it had.
    let ticks = 0;
    const stopCounting = loop.onTick(() => ticks++);
    service.handle({ type: 'replay-seek', atMs: takeOverAtMs - 3000 });
    service.handle({ type: 'replay-play' });
    await until(() => ticks >= 5);
    service.handle({ type: 'replay-pause' });
    stopCounting();
    expect(await store.countRows()).toBe(before);
    const rescoring = rescore(loop, review, memory, perception, { info: () => undefined });
    service.handle({ type: 'replay-seek', atMs: takeOverAtMs });
    service.handle({ type: 'replay-speed', speed: 4 });
    service.handle({ type: 'replay-play' });
    await until(() => service.state().review!.positionMs > takeOverAtMs + 3000);
    service.handle({ type: 'replay-pause' });
    await rescoring.close();
    await loop.close();
    const after = await store.countRows();
    const rows = (
      await store.query({ where: `${sqlColumn('episodeId')} = ${sqlString(rescoring.episodeId)}`, columns: ['mcapFile', 'mcapLogTimeNs'] })
    ).toArray();
    expect({ added: after - before, rows: rows.length }).toEqual({ added: rows.length, rows: expect.any(Number) });
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) {
      expect(row.mcapFile).toBe(recordingPath);
      const logMs = Number(row.mcapLogTimeNs / 1_000_000n);
      expect(logMs).toBeGreaterThanOrEqual(takeOverAtMs);
      expect(logMs).toBeLessThanOrEqual(takeOverAtMs + 4000);
    }
  });

  it('refuses to open a log it was never pointed at', () => {
    const result = service.handle({ type: 'open-moment', file: '/etc/passwd', atMs: 0 });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/neither in the recordings folder nor a match a search found/);
  });
});

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
