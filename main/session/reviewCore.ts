// The core `reins review FILE` runs: a recorded session (an MCAP log or a ROS 1 bag, opened by
// recording/reviewFile.ts) played through the same synchroniser, perception and world model as a
// live robot, with the review API (timeline, markers, plots, find similar moments) for the UI. By
// default it writes no memory, trains nothing and sends no command: the replay link cannot send,
// the cockpit refuses driving, and no learner or recorder is started. `--rescore` is the one
// explicit exception: memory rows for the replayed ticks, scored by the current models.
import { basename } from 'node:path';
import { defaultRecordingFolder } from '../recording/recordingLocation.ts';
import type { Logger } from 'pino';
import { CockpitService } from '../api/cockpitService.ts';
import type { RobotModelFile } from '../api/robotModelFile.ts';
import { ReactiveBaselinePolicy } from '../learning/reactiveBaselinePolicy.ts';
import { SwitchableLink } from '../links/switchableLink.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { defaultMemoryUri } from '../memory/memoryLocation.ts';
import { Memory } from '../memory/memory.ts';
import { MemoryWriter } from '../memory/memoryWriter.ts';
import { tickRowFromReport } from '../memory/tickFromReport.ts';
import type { Perception } from '../core/perception.ts';
import { openReviewFile } from '../recording/reviewFile.ts';
import type { StartArgs } from './startArgs.ts';
import { StartupError } from './startupError.ts';
import { ReviewSession, type OpenReviewLog, type ReviewLog } from './reviewSession.ts';
import { reviewTopicMap } from './reviewTopics.ts';
import { closeInOrder } from './closeInOrder.ts';
import { loadEncoders } from './encoders.ts';
import { createControlLoop } from './loopWiring.ts';
import { loadReviewWorldModel } from './worldModelSession.ts';

export interface ReviewCore {
  link: SwitchableLink;
  loop: ControlLoop;
  review: ReviewSession;
  /** What the UI's requests go through (driving refused: the log is the robot). */
  cockpit: CockpitService;
  rescoring: { episodeId: string } | undefined;
  /** Closes the loop first, then the rest in order; `beforeLog` parts (the API server) close before the log. */
  shutdown(beforeLog?: ReadonlyArray<readonly [string, () => Promise<unknown>]>): Promise<number>;
}

/** The review core: the log on a ReplayLink behind the loop's SwitchableLink, the same loop as a live robot's. */
/** `robotModelFile`: the robot's model from `--urdf FILE` (read at start), shown instead of the log's robot_description. */
export async function openReviewCore(args: StartArgs, file: string, log: Logger, options: { robotModelFile?: RobotModelFile } = {}): Promise<ReviewCore> {
  const perception = await loadEncoders(args, log);
  const openLog: OpenReviewLog = (path, options) => openReviewFile(path, options);
  let first: ReviewLog;
  try {
    first = await openLog(file, { onProgress: indexingProgress(file, log) });
  } catch (error) {
    throw new StartupError(`cannot review ${file}: ${(error as Error).message}`);
  }
  for (const problem of first.problems) log.warn({ file }, problem);
  const chosen = reviewTopicMap(first, args.reviewTopics);
  if (!chosen.ok) {
    await first.close();
    throw new StartupError(`--topic-map does not fit ${basename(first.path)}: ${chosen.message}`);
  }
  const { replay, topics } = ReviewSession.replayOf(first, args.reviewTopics);
  const link = new SwitchableLink(replay, undefined, topics);
  const worldModel = await loadReviewWorldModel(args.worldModel, perception, log);
  // The policy is never asked to drive (nothing is sent); it is there because the loop is the live one.
  const loop = await createControlLoop(link, {
    rateHz: args.rateHz,
    watchdogTimeoutMs: args.watchdogMs,
    perception,
    policy: new ReactiveBaselinePolicy(),
    ...(worldModel ? { worldModel } : {}),
  });
  const memory = args.stores.remember ? await openMemory(args.stores.memory ?? defaultMemoryUri(), log) : undefined;
  const review = ReviewSession.attach(link, first, {
    openLog,
    perception,
    ...(memory ? { memory } : {}),
    recordingFolders: [args.stores.recordings ?? defaultRecordingFolder()],
    onProblem: (message) => log.warn(message),
    ...(args.reviewTopics ? { topicChoice: args.reviewTopics } : {}),
    rescoring: args.rescore && memory !== undefined,
  });
  const rescoring = args.rescore && memory ? rescore(loop, review, memory, perception, log) : undefined;
  const cockpit = new CockpitService(link, loop, Date.now, {
    review,
    ...(args.pointsTopic ? { pointCloudTopic: args.pointsTopic } : {}),
    ...(options.robotModelFile ? { robotModelFile: options.robotModelFile } : {}),
  });
  return {
    link,
    loop,
    review,
    cockpit,
    rescoring,
    shutdown: (beforeLog = []) =>
      closeInOrder(
        [
          ['the loop', () => loop.close()],
          ['the re-scored rows', async () => rescoring?.close()],
          ['the memory', async () => memory?.close()],
          ...beforeLog,
          ['the log', () => review.close()],
          ['the replay', () => link.close()],
        ],
        log,
      ),
  };
}

/** Logs how far a log without a usable summary is indexed, every tenth (the cockpit is not served until it opens). */
function indexingProgress(file: string, log: Pick<Logger, 'info'>): (fraction: number) => void {
  let tenthsLogged = 0;
  return (fraction) => {
    const tenths = Math.floor(fraction * 10);
    if (tenths <= tenthsLogged) return;
    tenthsLogged = tenths;
    log.info({ file: basename(file), percent: tenths * 10 }, 'indexing a log without a summary');
  };
}

async function openMemory(uri: string, log: Logger): Promise<Memory | undefined> {
  try {
    return await Memory.open({ uri, maintenance: { periodMs: 0 } });
  } catch (error) {
    log.warn({ uri, err: error }, '"find similar moments" is off: the memory could not be opened');
    return undefined;
  }
}

/** `--rescore`: every tick played is a memory row of its own episode, pointing at the log and its log time. */
export function rescore(
  loop: ControlLoop,
  review: ReviewSession,
  memory: Memory,
  perception: Perception,
  log: Pick<Logger, 'info'>,
): { episodeId: string; close(): Promise<void> } {
  const space = { encoderVersion: perception.version, embeddingSize: perception.embeddingSize, distance: 'l2' as const };
  const writer = memory.ticks(space).then((store) => new MemoryWriter(store));
  const episodeId = `rescore-${new Date().toISOString()}`;
  let step = 0;
  const stop = loop.onTick((report) => {
    const replay = review.currentReplay();
    if (!replay.position().playing) return;
    const logTimeMs = replay.logTimeAt(report.frame.timeMs);
    // A log sends no commands: nothing is in effect whatever the loop holds.
    const row = tickRowFromReport(
      { ...report, commandInEffect: undefined },
      {
        episodeId,
        step: step++,
        robotId: replay.robotName,
        encoderVersion: perception.version,
        mcapFile: replay.source.path,
        mcapLogTimeNs: BigInt(Math.round(logTimeMs)) * 1_000_000n,
      },
    );
    void writer.then((w) => w.append(row));
  });
  log.info({ episodeId }, 're-scoring: the replayed ticks go to memory');
  return {
    episodeId,
    async close() {
      stop();
      await (await writer).close();
    },
  };
}
