// Learning from the operator in `reins start`: the session beside the control loop, its feedback
// written to the memory's corrections table, its questions' clips read back from the live recording.
// The learner (a PolicyImprover) is optional: without one, feedback is recorded and learning is off.
import type { Policy } from '../core/policy.ts';
import type { Logger } from 'pino';
import type { Link } from '../core/link.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { LearningSession, type LearningSessionOptions } from '../learning/learningSession.ts';
import type { PolicyImprover, RetrainOutcome } from '../learning/policyImprover.ts';
import { readMemoryTeaching } from '../learning/memoryTeaching.ts';
import type { ClipTopics } from '../learning/questionClips.ts';
import { SlowPath, type SlowPathOptions } from '../learning/slowPath.ts';
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import { Memory } from '../memory/memory.ts';
import type { TickSpace } from '../memory/tickSchema.ts';
import { LiveRecordingReader } from '../recording/liveRecordingReader.ts';
import type { SessionRecording } from '../recording/sessionRecording.ts';

export interface LearningWiring {
  loop: ControlLoop;
  link: Link;
  /** The policy the loop was built with: v1. */
  initialPolicy: Policy;
  improver?: PolicyImprover;
  /** The session's recording, for the questions' clips. */
  recording?: SessionRecording;
  /** The memory's URI, for the corrections table; undefined with --no-memory. */
  memoryUri?: string;
  /** The topics the clips read (the attached robot's). */
  topics: () => ClipTopics;
  log: Logger;
  /** The session's episode, as memory names its ticks. */
  episodeId: string;
  /** The memory's ticks table for these encoders, which the slow path retrains from (with memoryUri). */
  tickSpace?: TickSpace;
  /** The slow path's bounds and pace; overrides for tests. */
  slowPath?: Partial<SlowPathSettings>;
  /** Overrides for tests (question pace, segment length…). */
  session?: Partial<Pick<LearningSessionOptions, 'picker' | 'ledger' | 'minDrivingSecsForRate' | 'trend'>>;
  /** The loop's clock, which the session's times and the slow path's schedule follow; default: the wall clock. */
  schedule?: Schedule;
  /** Writes the ticks the memory's writer holds, so that a retrain from memory reads every tick lived so far. */
  flushMemory?: () => Promise<void>;
}

export interface SlowPathSettings extends Omit<SlowPathOptions, 'schedule' | 'onOutcome'> {
  /** The newest driven ticks a retrain reads (1 hour at 10 Hz). */
  maxTicks: number;
  /** Actor steps of one retrain. */
  steps: number;
}

export const DEFAULT_SLOW_PATH_SETTINGS: Readonly<Omit<SlowPathSettings, keyof SlowPathOptions>> = Object.freeze({ maxTicks: 36_000, steps: 1500 });

export interface LiveLearning {
  session: LearningSession;
  close(): Promise<void>;
}

export async function startLearning(wiring: LearningWiring): Promise<LiveLearning> {
  const { loop, link, log } = wiring;
  const schedule = wiring.schedule ?? wallSchedule();
  // A connection of its own to the memory, for the low-rate corrections table; the tick writer's
  // memory does the maintenance.
  const memory = wiring.memoryUri === undefined ? undefined : await Memory.open({ uri: wiring.memoryUri, maintenance: { periodMs: 0 }, schedule });
  const recording = wiring.recording;
  const clipTopics = () => {
    const topics = wiring.topics();
    return new Set([topics.camera, topics.scan, topics.odom]);
  };
  let reader: LiveRecordingReader | undefined;
  let readerTopics = '';
  const clipRecording = recording && {
    messages: (range: { topics: readonly string[]; startMs: number; endMs: number }) => {
      // A robot switched at runtime may name its topics differently: index afresh for the new names.
      const topics = clipTopics();
      const key = [...topics].join(' ');
      if (!reader || key !== readerTopics) {
        reader = new LiveRecordingReader(() => recording.stats().files, topics);
        readerTopics = key;
      }
      return reader.messages(range);
    },
  };
  const autoPromote = link.capabilities.simulated;
  const improver = wiring.improver;
  const space = wiring.tickSpace;
  let slowPath: SlowPath | undefined;
  if (memory && space && improver?.retrainFromMemory) {
    const { maxTicks, steps, ...pace } = { ...DEFAULT_SLOW_PATH_SETTINGS, ...wiring.slowPath };
    const read = async () => {
      await wiring.flushMemory?.();
      return readMemoryTeaching(await memory.ticks(space), memory.records, maxTicks);
    };
    const logOutcome = (outcome: RetrainOutcome) =>
      outcome.ok
        ? log.info({ version: outcome.version, ticks: outcome.ticks, trainedOn: outcome.trainedOn }, 'policy retrained from memory')
        : log.info({ reason: outcome.reason, ticks: outcome.ticks }, 'no policy retrained from memory');
    slowPath = new SlowPath(() => improver.retrainFromMemory!(read, steps), { ...pace, schedule, onOutcome: logOutcome });
  }
  const session = new LearningSession({
    loop,
    initialPolicy: wiring.initialPolicy,
    ...(wiring.improver ? { improver: wiring.improver } : {}),
    episodeId: wiring.episodeId,
    autoPromote,
    // Every item taught goes to the memory's corrections table and to the recording (the review's markers).
    ...(memory || recording
      ? {
          sink: async (row) => {
            recording?.recordFeedback(row);
            await memory?.records.addCorrection(row);
          },
        }
      : {}),
    ...(clipRecording ? { clips: { recording: clipRecording, topics: wiring.topics } } : {}),
    ...(slowPath ? { slowPath } : {}),
    clock: () => schedule.now(),
    ...wiring.session,
  });
  const stopAlerts = loop.addAlertSource(() => session.alerts());
  log.info(
    {
      learning: wiring.improver !== undefined,
      autoPromote,
      corrections: memory?.uri ?? 'not kept (--no-memory)',
      clips: recording ? 'from the recording' : 'none (--no-record)',
      slowPath: slowPath ? 'retrains from memory' : 'off',
    },
    'learning from the operator',
  );
  return {
    session,
    async close() {
      stopAlerts();
      try {
        await session.close();
      } finally {
        await memory?.close();
      }
    },
  };
}
