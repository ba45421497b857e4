// `reins review FILE.mcap`: a recorded session played through the same synchroniser, perception and
// world model as a live robot, with the review API (timeline, markers, plots, find similar moments)
// for the UI. By default it writes no memory, trains nothing and sends no command: the replay link
// cannot send, the cockpit refuses driving, and no learner or recorder is started. `--rescore` is
// the one explicit exception: memory rows for the replayed ticks, scored by the current models.
import { basename } from 'node:path';
import type { Logger } from 'pino';
import { CockpitService } from '../api/cockpitService.ts';
import { ReactiveBaselinePolicy } from '../learning/policy.ts';
import { SwitchableLink } from '../links/switchableLink.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { defaultMemoryUri } from '../memory/memoryLocation.ts';
import { Memory } from '../memory/memory.ts';
import { MemoryWriter } from '../memory/memoryWriter.ts';
import { tickRowFromReport } from '../memory/tickFromReport.ts';
import type { Perception } from '../perception/perception.ts';
import { openReviewLog } from '../recording/reviewLog.ts';
import type { StartArgs } from './main.ts';
import { StartupError } from './robotSpec.ts';
import { ReviewSession, type ReviewLog } from './reviewSession.ts';
import { defaultRecordingFolder } from './sessionStores.ts';
import { closeInOrder, loadEncoders, serveCockpit, untilStopSignal } from './start.ts';
import { createControlLoop } from './wiring.ts';
import { loadReviewWorldModel } from './worldModelSession.ts';

export async function runReview(args: StartArgs, file: string, log: Logger): Promise<number> {
  const perception = await loadEncoders(args, log);
  const openLog = (path: string): Promise<ReviewLog> => openReviewLog(path);
  let first: ReviewLog;
  try {
    first = await openLog(file);
  } catch (error) {
    throw new StartupError(`cannot review ${file}: ${(error as Error).message}`);
  }
  for (const problem of first.problems) log.warn({ file }, problem);
  const { replay, topics } = ReviewSession.replayOf(first);
  const link = new SwitchableLink(replay, undefined, topics);
  const worldModel = await loadReviewWorldModel(args.worldModel, perception, log);
  // The policy is never asked to drive (nothing is sent); it is there because the loop is the live one.
  const loop = await createControlLoop(link, { rateHz: args.rateHz, watchdogTimeoutMs: args.watchdogMs, perception, policy: new ReactiveBaselinePolicy(), ...(worldModel ? { worldModel } : {}) });
  const memory = args.stores.remember ? await openMemory(args.stores.memory ?? defaultMemoryUri(), log) : undefined;
  const review = ReviewSession.attach(link, first, {
    openLog,
    perception,
    ...(memory ? { memory } : {}),
    recordingFolders: [args.stores.recordings ?? defaultRecordingFolder()],
    onProblem: (message) => log.warn(message),
  });
  const rescoring = args.rescore && memory ? rescore(loop, review, memory, perception, log) : undefined;
  loop.start();
  const server = await serveCockpit(new CockpitService(link, loop, Date.now, { review, ...(args.pointsTopic ? { pointCloudTopic: args.pointsTopic } : {}) }), args, log);
  log.info({ file: basename(file), port: server.port, rescore: rescoring !== undefined }, 'reviewing a recorded session');

  const signal = await untilStopSignal();
  log.info({ signal }, 'closing the review');
  return closeInOrder(
    [
      ['the loop', () => loop.close()],
      ['the re-scored rows', async () => rescoring?.close()],
      ['the memory', async () => memory?.close()],
      ['the API server', () => server.close()],
      ['the log', () => review.close()],
      ['the replay', () => link.close()],
    ],
    log,
  );
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
export function rescore(loop: ControlLoop, review: ReviewSession, memory: Memory, perception: Perception, log: Pick<Logger, 'info'>): { episodeId: string; close(): Promise<void> } {
  const space = { encoderVersion: perception.version, embeddingSize: perception.embeddingSize, distance: 'l2' as const };
  const writer = memory.ticks(space).then((store) => new MemoryWriter(store));
  const episodeId = `rescore-${new Date().toISOString()}`;
  let step = 0;
  const stop = loop.onTick((report) => {
    const replay = review.currentReplay();
    if (!replay.position().playing) return;
    const logTimeMs = replay.logTimeAt(report.frame.timeMs);
    const row = tickRowFromReport(report, {
      episodeId,
      step: step++,
      robotId: replay.robotName,
      encoderVersion: perception.version,
      policyVersion: loop.policyVersion,
      commandInEffect: undefined,
      mcapFile: replay.source.path,
      mcapLogTimeNs: BigInt(Math.round(logTimeMs)) * 1_000_000n,
    });
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
