import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CorrectionRow } from '../memory/corrections.ts';
import { SURPRISE_ALARM_RATIO } from '../core/belief.ts';
import { Recorder } from './recorder.ts';
import { RecordingReader } from './recordingReader.ts';
import {
  ALERTS_CHANNEL,
  COMMAND_SENT_CHANNEL,
  FEEDBACK_CHANNEL,
  OPERATOR_INPUT_CHANNEL,
  SURPRISE_CHANNEL,
  TICK_CHANNEL,
  type EventChannel,
} from './reinsEvents.ts';
import { buildTimeline, MAX_ROS_LOG_MARKERS, type TimelineSource } from './reviewTimeline.ts';

const T0_MS = 1_700_000_000_000;
let folder: string;
let reader: RecordingReader | undefined;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-timeline-'));
});
afterEach(async () => {
  await reader?.close();
  reader = undefined;
  await rm(folder, { recursive: true, force: true });
});

async function opened(record: (recorder: Recorder) => void): Promise<TimelineSource> {
  const path = join(folder, 'session.mcap');
  const recorder = await Recorder.open({ path });
  record(recorder);
  await recorder.close();
  reader = await RecordingReader.open(path);
  const log = reader;
  const mcap = log.mcap!;
  const stats = mcap.statistics!;
  return {
    path,
    channels: [...mcap.channelsById.values()].map((channel) => ({
      topic: channel.topic,
      schemaName: mcap.schemasById.get(channel.schemaId)?.name ?? '',
    })),
    startMs: Number(stats.messageStartTime) / 1e6,
    endMs: Number(stats.messageEndTime) / 1e6,
    messages: (range) => log.messages(range),
  };
}

function feedback(row: Partial<CorrectionRow> & Pick<CorrectionRow, 'correctionId' | 'kind' | 'atMs'>): CorrectionRow {
  return { episodeId: 'ep', spanStartStep: 0, spanEndStep: 0, answeredBy: 'operator', ...row };
}

function surprise(surpriseRatio: number) {
  return { surpriseRatio, modality: 'camera', surpriseNats: 1, predictionError: 0.1, worldModelVersion: 'v1' };
}

/** `/reins/surprise` as logs written before the rename hold it: the ratio was `score`. */
const SURPRISE_CHANNEL_WITH_SCORE: EventChannel = {
  topic: '/reins/surprise',
  schemaName: 'reins.Surprise',
  jsonSchema: {
    type: 'object',
    properties: {
      score: { type: 'number' },
      modality: { type: 'string' },
      surpriseNats: { type: 'number' },
      predictionError: { type: 'number' },
      worldModelVersion: { type: 'string' },
    },
    required: ['score', 'modality', 'surpriseNats', 'predictionError', 'worldModelVersion'],
  },
};

describe('buildTimeline', () => {
  it('marks interventions at their first tick, answers, ratings, surprises and new alerts, and leaves out what was undone', async () => {
    const source = await opened((recorder) => {
      for (let step = 0; step < 100; step++) {
        const t = T0_MS + step * 100;
        recorder.recordEvent(TICK_CHANNEL, t, {
          episodeId: 'ep',
          step,
          driver: step >= 30 && step < 40 ? 'operator' : 'policy',
          policyVersion: 'v2',
          rewardEstimate: step / 100,
        });
        recorder.record({
          topic: '/odom',
          receiveTimeMs: t,
          sourceTimeMs: t,
          msg: {
            kind: 'Odometry',
            frameId: 'odom',
            childFrameId: 'base',
            odomFromBaseXM: 0,
            odomFromBaseYM: 0,
            odomFromBaseYawRad: 0,
            linearMps: step === 50 ? -0.4 : 0.2,
            angularRadps: 0,
          },
        });
        // Surprise: one burst at steps 20–22 (peak 21), another at 70.
        recorder.recordEvent(SURPRISE_CHANNEL, t, surprise(step === 21 ? 6 : step === 20 || step === 22 ? 4 : step === 70 ? 3.5 : 1));
      }
      // The intervention is written when it ends (step 39), and names its span.
      recorder.recordEvent(
        FEEDBACK_CHANNEL,
        T0_MS + 3950,
        feedback({ correctionId: 'i1', kind: 'intervention', atMs: T0_MS + 3950, spanStartStep: 30, spanEndStep: 39 }),
      );
      recorder.recordEvent(
        FEEDBACK_CHANNEL,
        T0_MS + 6000,
        feedback({ correctionId: 'r1', kind: 'rating', atMs: T0_MS + 6000, spanStartStep: 59, spanEndStep: 59, rating: -1 }),
      );
      recorder.recordEvent(
        FEEDBACK_CHANNEL,
        T0_MS + 6500,
        feedback({ correctionId: 'r2', kind: 'rating', atMs: T0_MS + 6500, spanStartStep: 64, spanEndStep: 64, rating: 1 }),
      );
      recorder.recordEvent(FEEDBACK_CHANNEL, T0_MS + 6600, feedback({ correctionId: 'u1', kind: 'undo', atMs: T0_MS + 6600, undoesCorrectionId: 'r2' }));
      recorder.recordEvent(
        FEEDBACK_CHANNEL,
        T0_MS + 8000,
        feedback({
          correctionId: 'p1',
          kind: 'preference',
          atMs: T0_MS + 8000,
          otherEpisodeId: 'ep',
          otherSpanStartStep: 1,
          otherSpanEndStep: 2,
          answer: 'second',
          question: 'q1',
        }),
      );
      const alert = { key: 'camera-stale', severity: 'warn', message: 'Camera is stale' };
      recorder.recordEvent(ALERTS_CHANNEL, T0_MS + 4500, { alerts: [alert] });
      recorder.recordEvent(ALERTS_CHANNEL, T0_MS + 4600, { alerts: [alert, { key: 'hint', severity: 'info', message: 'just so you know' }] });
      recorder.recordEvent(ALERTS_CHANNEL, T0_MS + 4700, { alerts: [] });
      recorder.recordEvent(ALERTS_CHANNEL, T0_MS + 4800, { alerts: [alert] });
    });
    const timeline = await buildTimeline(source, { surpriseRatioThreshold: 3 });
    expect(timeline.markers.map((marker) => [marker.kind, marker.atMs - T0_MS])).toEqual([
      ['surprise', 2100],
      ['intervention', 3000],
      ['alert', 4500],
      ['alert', 4800],
      ['rating', 5900],
      ['surprise', 7000],
      ['answer', 8000],
    ]);
    expect(timeline.markers.find((marker) => marker.kind === 'intervention')!.label).toBe('Intervention (10 ticks)');
    expect(timeline.markers.find((marker) => marker.kind === 'rating')!.label).toBe('Rated bad');
    expect(timeline.markers.find((marker) => marker.kind === 'answer')!.label).toBe('Answered: right better');
    expect(timeline.markers[0]!.label).toMatch(/^Surprise 6\.0×/);
    expect(timeline.series.map((series) => [series.name, series.values.length])).toEqual([
      ['Speed', 100],
      ['Surprise ratio', 100],
      ['Reward estimate', 100],
    ]);
    expect(timeline.series[0]!.values[50]).toBeCloseTo(-0.4);
    expect(timeline.startMs).toBe(T0_MS);
  });

  it('marks a surprise at the cockpit’s alarm threshold by default, none below it', async () => {
    const source = await opened((recorder) => {
      recorder.recordEvent(SURPRISE_CHANNEL, T0_MS + 1000, surprise(SURPRISE_ALARM_RATIO * 0.99));
      recorder.recordEvent(SURPRISE_CHANNEL, T0_MS + 5000, surprise(SURPRISE_ALARM_RATIO));
    });
    const timeline = await buildTimeline(source);
    expect(timeline.markers.map((marker) => [marker.kind, marker.atMs - T0_MS])).toEqual([['surprise', 5000]]);
  });

  it('still marks and plots the surprises of a log written when the ratio was called score', async () => {
    const source = await opened((recorder) => {
      for (let step = 0; step < 50; step++) {
        const score = step === 10 ? 5 : step === 40 ? 3.2 : 1;
        recorder.recordEvent(SURPRISE_CHANNEL_WITH_SCORE, T0_MS + step * 100, {
          score,
          modality: 'proprio',
          surpriseNats: 0.5,
          predictionError: 0.1,
          worldModelVersion: 'v0',
        });
      }
    });
    const timeline = await buildTimeline(source, { surpriseRatioThreshold: 3 });
    expect(timeline.markers).toEqual([
      { kind: 'surprise', atMs: T0_MS + 1000, label: 'Surprise 5.0× (proprio)' },
      { kind: 'surprise', atMs: T0_MS + 4000, label: 'Surprise 3.2× (proprio)' },
    ]);
    const ratio = timeline.series.find((series) => series.name === 'Surprise ratio')!;
    expect(ratio.values).toHaveLength(50);
    expect(ratio.values[10]).toBe(5);
  });

  it('thins long series to the point budget and keeps their peaks', async () => {
    const source = await opened((recorder) => {
      for (let i = 0; i < 1000; i++) {
        const t = T0_MS + i * 10;
        const linearMps = i === 777 ? 0.9 : 0.1;
        recorder.recordEvent(COMMAND_SENT_CHANNEL, t, {
          driver: 'operator',
          command: { linearMps, angularRadps: 0 },
          requested: { linearMps, angularRadps: 0 },
          clipped: false,
          delivered: true,
          atMs: t,
        });
      }
    });
    const timeline = await buildTimeline(source, { maxSeriesPoints: 100 });
    const commanded = timeline.series.find((series) => series.name === 'Commanded speed')!;
    expect(commanded.values).toHaveLength(100);
    expect(Math.max(...commanded.values.map(Number))).toBeCloseTo(0.9);
  });

  it('takes the operator’s takeovers for interventions in a log recorded without learning', async () => {
    const source = await opened((recorder) => {
      recorder.recordEvent(OPERATOR_INPUT_CHANNEL, T0_MS + 100, { action: 'take-over' });
      recorder.recordEvent(OPERATOR_INPUT_CHANNEL, T0_MS + 900, { action: 'hand-back' });
    });
    const timeline = await buildTimeline(source);
    expect(timeline.markers).toEqual([{ kind: 'intervention', atMs: T0_MS + 100, label: 'Operator took over' }]);
    expect(timeline.series).toEqual([]);
  });

  it("marks the robot's own warnings and errors on /rosout (ROS 1 and ROS 2 levels), a repeat once, and caps them", async () => {
    type Entry = { topic: string; logTimeMs: number; value: unknown };
    const entries: Entry[] = [
      // ROS 2: INFO 20 is not marked, WARN 30 and ERROR 40 are; the same warning again within 10 s is one moment.
      { topic: '/rosout', logTimeMs: T0_MS + 100, value: { level: 20, name: 'talker', msg: 'Publishing: hello' } },
      { topic: '/rosout', logTimeMs: T0_MS + 200, value: { level: 30, name: 'planner', msg: 'no path   to goal' } },
      { topic: '/rosout', logTimeMs: T0_MS + 300, value: { level: 30, name: 'planner', msg: 'no path to goal' } },
      { topic: '/rosout', logTimeMs: T0_MS + 5000, value: { level: 30, name: 'planner', msg: 'no path   to goal' } },
      { topic: '/rosout', logTimeMs: T0_MS + 20_000, value: { level: 30, name: 'planner', msg: 'no path   to goal' } },
      { topic: '/rosout', logTimeMs: T0_MS + 21_000, value: { level: 50, name: 'driver', msg: 'motor fault' } },
      // ROS 1 numbering: INFO 2 is not marked, WARN 4 and ERROR 8 are.
      { topic: '/ros1/rosout', logTimeMs: T0_MS + 400, value: { level: 2, name: '/talker', msg: 'hello' } },
      { topic: '/ros1/rosout', logTimeMs: T0_MS + 500, value: { level: 8, name: '/base', msg: 'bumper pressed' } },
      // Not a log entry: no level.
      { topic: '/rosout', logTimeMs: T0_MS + 600, value: { name: 'odd' } },
    ];
    const source: TimelineSource = {
      path: 'other-tool.mcap',
      channels: [
        { topic: '/rosout', schemaName: 'rcl_interfaces/msg/Log' },
        { topic: '/ros1/rosout', schemaName: 'rosgraph_msgs/Log' },
      ],
      startMs: T0_MS,
      endMs: T0_MS + 30_000,
      async *messages(range) {
        for (const entry of [...entries].sort((a, b) => a.logTimeMs - b.logTimeMs)) if (range.topics?.includes(entry.topic) ?? true) yield entry;
      },
    };
    const timeline = await buildTimeline(source);
    expect(timeline.markers).toEqual([
      { kind: 'alert', atMs: T0_MS + 200, label: 'WARN planner: no path to goal' },
      { kind: 'alert', atMs: T0_MS + 500, label: 'ERROR /base: bumper pressed' },
      { kind: 'alert', atMs: T0_MS + 20_000, label: 'WARN planner: no path to goal' },
      { kind: 'alert', atMs: T0_MS + 21_000, label: 'FATAL driver: motor fault' },
    ]);

    // A node warning without end is marked up to the cap, then one marker says how many were left out.
    const flood: Entry[] = Array.from({ length: MAX_ROS_LOG_MARKERS + 7 }, (_, index) => ({
      topic: '/rosout',
      logTimeMs: T0_MS + index * 100,
      value: { level: 40, name: 'lidar', msg: `timeout ${index}` },
    }));
    const flooded = await buildTimeline({
      ...source,
      messages: async function* () {
        yield* flood;
      },
    });
    expect(flooded.markers).toHaveLength(MAX_ROS_LOG_MARKERS + 1);
    expect(flooded.markers.find((marker) => marker.label.startsWith('7 more warnings'))).toMatchObject({ atMs: T0_MS + MAX_ROS_LOG_MARKERS * 100 });
  });
});
