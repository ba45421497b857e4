import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import { RecordingReader } from './recordingReader.ts';
import type { CommandSentEvent } from './reinsEvents.ts';
import { startSessionRecording } from './sessionRecording.ts';

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-session-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

it('records the link’s sensor topics, every command sent with who drove, alerts, operator inputs, ticks and feedback', async () => {
  const link = new ScriptedLink('sim robot', 'present', [
    { topic: '/odom', kind: 'Odometry', type: 'nav_msgs/Odometry' },
    { topic: '/cmd_vel', kind: 'Twist' },
  ]);
  const listeners = new Set<(sent: CommandSentEvent) => void>();
  const loop = { onSent: (listener: (sent: CommandSentEvent) => void) => (listeners.add(listener), () => listeners.delete(listener)) };
  const session = await startSessionRecording({ link, loop, folder, clock: () => 1_000_500, fileName: 'session.mcap' });
  expect(link.subscribedTopics()).toEqual(['/odom']);

  link.deliver(
    '/odom',
    { kind: 'Odometry', frameId: 'odom', childFrameId: 'base', odomFromBaseXM: 0, odomFromBaseYM: 0, odomFromBaseYawRad: 0, linearMps: 0.2, angularRadps: 0 },
    1_000_000,
  );
  for (const listener of listeners) {
    listener({
      driver: 'operator',
      command: { linearMps: 0.2, angularRadps: 0 },
      requested: { linearMps: 0.2, angularRadps: 0 },
      clipped: false,
      delivered: true,
      atMs: 1_000_100,
    });
    listener({
      driver: 'estopped',
      command: { linearMps: 0, angularRadps: 0 },
      requested: { linearMps: 0, angularRadps: 0 },
      clipped: false,
      delivered: true,
      atMs: 1_000_200,
    });
  }
  session.recordOperatorInput({ action: 'estop' }, 1_000_150);
  session.recordSurprise({ surpriseRatio: 12.5, modality: 'proprio', surpriseNats: 3.1, predictionError: 0.4, worldModelVersion: 'wm-1' }, 1_000_160);
  session.recordTick({ episodeId: 'ep', step: 7, driver: 'policy', policyVersion: 'v3', rewardEstimate: 0.25 }, 1_000_170);
  session.recordFeedback({
    correctionId: 'rating-1',
    kind: 'rating',
    atMs: 1_000_180,
    episodeId: 'ep',
    spanStartStep: 7,
    spanEndStep: 7,
    rating: -1,
    answeredBy: 'operator',
  });
  expect(session.currentPath()).toBe(session.path);
  link.raise([{ key: 'camera-stale', severity: 'warn', message: 'camera silent' }]);
  await session.close();
  expect(link.subscribedTopics()).toEqual([]);

  const reader = await RecordingReader.open(session.path);
  const seen: Array<[string, string, number]> = [];
  for await (const m of reader.messages()) seen.push([m.topic, m.schemaName, m.logTimeMs]);
  await reader.close();
  expect(seen).toEqual([
    ['/odom', 'nav_msgs/Odometry', 1_000_000],
    ['/reins/command_sent', 'reins.CommandSent', 1_000_100],
    ['/cmd_vel', 'geometry_msgs/Twist', 1_000_100],
    ['/reins/operator_input', 'reins.OperatorInput', 1_000_150],
    ['/reins/surprise', 'reins.Surprise', 1_000_160],
    ['/reins/tick', 'reins.Tick', 1_000_170],
    ['/reins/feedback', 'reins.Feedback', 1_000_180],
    ['/reins/command_sent', 'reins.CommandSent', 1_000_200],
    ['/cmd_vel', 'geometry_msgs/Twist', 1_000_200],
    ['/reins/alerts', 'reins.Alerts', 1_000_500],
  ]);
});
