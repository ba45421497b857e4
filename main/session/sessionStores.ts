// What a running core keeps of its session (DESIGN §2 step 9): every stream and command in an MCAP
// recording, and every tick as a memory row pointing into that recording. Both sit beside the loop:
// the tick only enqueues, and their troubles reach the operator as keyed alerts, never as a stop.
import type { CoreAlert } from '../core/alert.ts';
import type { Logger } from 'pino';
import type { Link } from '../core/link.ts';
import { episodeIdOf } from '../core/tickReport.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { defaultMemoryUri } from '../memory/memoryLocation.ts';
import type { MemoryWriter, WriterStatus } from '../memory/memoryWriter.ts';
import type { TickSpace } from '../memory/tickSchema.ts';
import type { Perception } from '../core/perception.ts';
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import type { MaintenanceStatus } from '../memory/memoryMaintenance.ts';
import { defaultRecordingFolder } from '../recording/recordingLocation.ts';
import { startSessionRecording, type SessionRecording } from '../recording/sessionRecording.ts';
import { openTickMemory, type TickMemory } from './memoryParts.ts';

export interface SessionStoreArgs {
  /** Recording folder; undefined: the default. */
  recordings: string | undefined;
  record: boolean;
  /** LanceDB URI; undefined: the default. */
  memory: string | undefined;
  remember: boolean;
}

export interface SessionStores {
  /** The memory the ticks go to, for the world model's learner; undefined with --no-memory. */
  memory:
    { uri: string; space: TickSpace; writtenTicks: () => number; writerStatus: () => WriterStatus; maintenanceStatus: () => MaintenanceStatus } | undefined;
  /** The session's recording; undefined with --no-record. */
  recording: SessionRecording | undefined;
  /** The session's first episode; later ones (after the operator's `end-episode`) are `episodeIdOf(episodeId, index)`. Memory rows and feedback name them so. */
  episodeId: string;
  /** Writes every tick kept so far to memory (a lockstep core calls it before what reads memory runs). */
  flushMemory(): Promise<void>;
  /**
   * Gives each memory row the reward model's estimate for its tick from now on (the world model's
   * reward head learns it on replay, DESIGN §3). A failing estimator leaves the row without one.
   */
  setRewardEstimator(estimate: (embedding: Float32Array) => number | undefined): void;
  /**
   * Gives back what the stores hold beyond their data (the core's memory is near its budget): the
   * memory's LanceDB connection is replaced now rather than at its next 5-minute reconnect, dropping its
   * per-commit caches. Queued rows and messages are kept; a failed reconnect keeps the old connection and throws.
   */
  shrinkCaches(): Promise<void>;
  close(): Promise<void>;
}

export const DEFAULT_RECORDING_QUOTA_BYTES = 20 * 1024 ** 3;

function writerAlerts(writer: MemoryWriter<unknown>): CoreAlert[] {
  const status = writer.status();
  if (!status.degraded) return [];
  return [
    {
      key: 'memory-degraded',
      severity: 'warn',
      message: `Memory is not keeping up (${status.dropped} ticks not kept${status.lastError ? `; last error: ${status.lastError}` : ''})`,
      hint: 'The robot is unaffected. Check the disk at the memory location, or lower the control rate.',
    },
  ];
}

/** `schedule`: the core's clock, which the recording's event times, the memory writer and memory upkeep follow. */
export async function openSessionStores(
  link: Link,
  loop: ControlLoop,
  perception: Perception,
  args: SessionStoreArgs,
  log: Logger,
  schedule: Schedule = wallSchedule(),
): Promise<SessionStores> {
  const closers: Array<() => Promise<void>> = [];
  const episodeId = `${link.robotName}-${new Date().toISOString()}`;
  let rewardEstimator: ((embedding: Float32Array) => number | undefined) | undefined;
  const estimateReward = (embedding: Float32Array): number | undefined => {
    try {
      return rewardEstimator?.(embedding);
    } catch {
      return undefined;
    }
  };
  let memoryFacts: SessionStores['memory'];
  let recording: SessionRecording | undefined;
  if (args.record) {
    const folder = args.recordings ?? defaultRecordingFolder();
    recording = await startSessionRecording({ link, loop, folder, quotaBytes: DEFAULT_RECORDING_QUOTA_BYTES, clock: () => schedule.now() });
    const stopAlerts = loop.addAlertSource(() => recording?.alerts() ?? []);
    closers.push(async () => {
      stopAlerts();
      await recording?.close();
    });
    log.info({ path: recording.path }, 'recording the session');
  }
  let ticks: TickMemory | undefined;
  if (args.remember) {
    const opened = await openTickMemory(args.memory ?? defaultMemoryUri(), perception, { schedule });
    const { memory, space, writer: tickWriter } = opened;
    ticks = opened;
    memoryFacts = {
      uri: memory.uri,
      space,
      writtenTicks: () => tickWriter.status().written,
      writerStatus: () => tickWriter.status(),
      maintenanceStatus: () => memory.maintenance.status(),
    };
    const stopAlerts = loop.addAlertSource(() => writerAlerts(tickWriter));
    closers.push(async () => {
      stopAlerts();
      await opened.close();
    });
    log.info({ uri: memory.uri, episodeId }, 'keeping every tick in memory');
  }
  // Every tick: a memory row pointing into the recording, and in the recording the tick's step, driver,
  // policy version and reward estimate (a review places feedback, named by step, in time with them).
  const stopTicks = loop.onTick((report) => {
    const tickStep = report.episode.step;
    const tickEpisodeId = episodeIdOf(episodeId, report.episode.index);
    const rewardEstimate = estimateReward(report.embedding.values);
    const mcapFile = recording?.currentPath();
    recording?.recordTick(
      {
        episodeId: tickEpisodeId,
        step: tickStep,
        driver: report.driver,
        policyVersion: report.policyVersion,
        ...(rewardEstimate === undefined ? {} : { rewardEstimate }),
      },
      report.frame.timeMs,
    );
    ticks?.remember(report, {
      episodeId: tickEpisodeId,
      step: tickStep,
      robotId: link.robotName,
      rewardEstimate,
      mcapFile,
      mcapLogTimeNs: recording ? BigInt(Math.round(report.frame.timeMs)) * 1_000_000n : undefined,
    });
  });
  closers.push(async () => stopTicks());
  return {
    memory: memoryFacts,
    recording,
    episodeId,
    flushMemory: async () => ticks?.writer.flush(),
    setRewardEstimator(estimate) {
      rewardEstimator = estimate;
    },
    shrinkCaches: async () => ticks?.memory.reconnect(),
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
