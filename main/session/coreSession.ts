// The core as `reins start` composes it, without the API server: the encoders, the robot behind the
// session's SwitchableLink, the world model and its learner, the control loop, the recording and the
// memory, learning from the operator, and the CockpitService that carries out the operator's requests.
// `reins start` serves it to the UI; `reins soak` drives it with a scripted operator.
import { reinsDataFolder } from '../memory/memoryLocation.ts';
import type { Logger } from 'pino';
import { CockpitService } from '../api/cockpitService.ts';
import type { RobotModelFile } from '../api/robotModelFile.ts';
import { RobotConnections } from '../api/robotConnections.ts';
import { OnlineImprover } from '../learning/onlineImprover.ts';
import type { PolicyLearnerOptions } from '../learning/policyLearner.ts';
import { policyCheckpointFolder } from '../learning/policyCheckpoints.ts';
import { ReactiveBaselinePolicy } from '../learning/reactiveBaselinePolicy.ts';
import { SwitchableLink } from '../links/switchableLink.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { trimHeap } from '../core/runtime/allocatorTuning.ts';
import { keepTheLoopFirst, tuneSessionMemory } from './loopFirst.ts';
import type { Perception } from '../core/perception.ts';
import { SESSION_SPEED_LIMITS } from './safetyParts.ts';
import { selectSessionBackend } from './worldModelBackend.ts';
import { startLearning, type LiveLearning } from './learningWiring.ts';
import type { StartArgs } from './startArgs.ts';
import { openRobot, type OpenedRobot } from './openRobot.ts';
import type { RobotSpec } from '../links/robotAddress.ts';
import { openSessionStores, type SessionStores } from './sessionStores.ts';
import { closeInOrder } from './closeInOrder.ts';
import { loadEncoders } from './encoders.ts';
import { defaultCheckpointFolder, loadWorldModel, startWorldModelLearning, type WorldModelLearning } from './worldModelSession.ts';
import { createControlLoop } from './loopWiring.ts';
import { wallSchedule, type Schedule } from '../core/runtime/schedule.ts';
import type { MemoryBudget } from '../core/runtime/memoryBudget.ts';
import { watchMemoryBudget } from './memoryPressure.ts';

export interface CoreSessionOptions {
  /** Where saved world-model and policy versions are read and written; default $XDG_DATA_HOME/reins. */
  dataFolder?: string;
  /** Opens the first robot; default: `openRobot` on the spec (the built-in sim in its own process). */
  openFirstRobot?: () => Promise<OpenedRobot>;
  /**
   * The one clock the loop, the cockpit and every learning schedule run on; default: the wall clock.
   * A lockstep core (the learning bench) passes a LockstepSchedule and drives the ticks itself.
   */
  schedule?: Schedule;
  /**
   * The policy learner's training signal and settings over its defaults (the learning bench's `bc`
   * streams set `method: 'bc'`; everything else stays as `reins start` has it).
   */
  learner?: Partial<PolicyLearnerOptions>;
  /** When the policy learner's candidates are offered (OnlineImproverOptions.candidates): a lockstep core offers them at the next round. */
  candidates?: 'when-ready' | 'at-next-round';
  /** The robot's model for the 3D view (`--urdf FILE`, read at start); without it, the robot's robot_description topic. */
  robotModelFile?: RobotModelFile;
}

export interface CoreSession {
  perception: Perception;
  link: SwitchableLink;
  loop: ControlLoop;
  connections: RobotConnections;
  stores: SessionStores;
  worldModelLearning: WorldModelLearning | undefined;
  teaching: LiveLearning;
  /** The resident memory against `--memory-budget-mib`: near it the learners pause (alert `memory-pressure`). */
  memoryBudget: MemoryBudget;
  /** What the UI's requests go through. */
  cockpit: CockpitService;
  /** Training steps taken so far: the policy learner's actor steps (rounds and retrains) and the world model's. */
  learnerSteps(): { policy: number; worldModel: number };
  /** What the policy learner learns from now, copied (benches measure its parts on it). */
  learnerTeaching(): ReturnType<OnlineImprover['heldTeaching']>;
  /**
   * Stops the robot first (the loop's last zero is sent before anything awaits), then closes each part;
   * `beforeLink` parts (the API server) close after the stores and before the robot's link.
   */
  shutdown(beforeLink?: ReadonlyArray<readonly [string, () => Promise<unknown>]>): Promise<number>;
}

/** Composes the core; the loop is built but not started. */
export async function openCoreSession(args: StartArgs, robot: RobotSpec, log: Logger, options: CoreSessionOptions = {}): Promise<CoreSession> {
  // Before the encoders, LanceDB and the learners start allocating (see allocatorTuning.ts).
  const allocator = tuneSessionMemory(log);
  const dataFolder = options.dataFolder ?? reinsDataFolder();
  const schedule = options.schedule ?? wallSchedule();
  const clock = () => schedule.now();
  const perception = await loadEncoders(args, log);
  const opened = await (options.openFirstRobot ?? (() => openRobot(robot, log, args.simArgs, undefined, args.command, args.ca?.pem)))();
  // The loop holds one link for the session; the connection manager swaps robots behind it.
  const link = new SwitchableLink(opened.link);
  const worldModel = await loadWorldModel(args.worldModel, perception, log);
  const initialPolicy = new ReactiveBaselinePolicy();
  const loop = await createControlLoop(link, {
    rateHz: args.rateHz,
    watchdogTimeoutMs: args.watchdogMs,
    clock,
    perception,
    policy: initialPolicy,
    ...(worldModel ? { worldModel: worldModel.filter } : {}),
  });
  const connections = new RobotConnections(
    link,
    { robot: args.robot ?? 'sim', opened },
    {
      openRobot: (spec, topics) => openRobot(spec, log, args.simArgs, topics, args.command, args.ca?.pem),
      driver: () => loop.driver(),
      log,
    },
  );
  logClipping(loop, log);
  const stores = await openSessionStores(link, loop, perception, args.stores, log, schedule);
  const learning =
    worldModel && stores.memory
      ? startWorldModelLearning(worldModel, loop, stores.memory, defaultCheckpointFolder(dataFolder), args.worldModel, log, stores.recording?.recordSurprise)
      : undefined;
  if (worldModel && !stores.memory) log.warn('the world model runs without learning: its learner replays memory, and --no-memory keeps none');
  if (learning) loop.addAlertSource(() => learning.alerts());
  // Learning from the operator: the online learner trains the reward ensemble and the policy; memory rows carry its reward estimate.
  // The learner's networks want the fastest TF.js backend too; the world model has chosen it when it runs.
  if (!worldModel) log.info({ backend: (await selectSessionBackend()).backend }, 'policy learner backend');
  const improver = new OnlineImprover({
    embeddingSize: perception.embeddingSize,
    limits: [...SESSION_SPEED_LIMITS],
    schedule,
    ...(options.candidates ? { candidates: options.candidates } : {}),
    ...(options.learner ? { learner: options.learner } : {}),
    checkpoints: { folder: policyCheckpointFolder(dataFolder, perception.version), encoderVersion: perception.version },
  });
  stores.setRewardEstimator((embedding) => improver.rewardEstimate(embedding));
  // The policy learner imagines in the world model as the filter has it (when its options turn that on).
  const stopImagining =
    worldModel && learning ? learning.onWeights((weights, version) => improver.useWorldModel(worldModel.config, weights, version)) : undefined;
  const teaching = await startLearning({
    loop,
    link,
    initialPolicy,
    ...(stores.recording ? { recording: stores.recording } : {}),
    ...(stores.memory ? { memoryUri: stores.memory.uri, tickSpace: stores.memory.space } : {}),
    topics: () => connections.topics(),
    log,
    episodeId: stores.episodeId,
    improver,
    schedule,
    flushMemory: () => stores.flushMemory(),
  });
  // What earlier sessions taught carries on: the newest saved version is offered again.
  const restored = await improver.restore();
  if (restored.restored) log.info({ version: restored.restored }, 'policy restored from an earlier session');
  for (const reason of restored.refused) log.warn({ reason }, 'a saved policy was not used');
  const cockpit = new CockpitService(link, loop, clock, {
    connections,
    worldModelStatus: () => learning?.status(),
    learning: teaching.session,
    ...(stores.recording ? { recordInput: stores.recording.recordOperatorInput } : {}),
    ...(args.pointsTopic ? { pointCloudTopic: args.pointsTopic } : {}),
    ...(options.robotModelFile ? { robotModelFile: options.robotModelFile } : {}),
  });
  // Near the memory budget the learners pause and caches shrink; the loop and the stores go on (memoryPressure.ts).
  const memoryBudget = watchMemoryBudget({
    budgetMib: args.memoryBudgetMib,
    schedule,
    learners: [
      ...(learning ? [{ name: 'world model', pause: () => learning.pause(), resume: () => learning.resume() }] : []),
      { name: 'policy', pause: () => improver.pause(), resume: () => improver.resume() },
    ],
    caches: [
      ['memory connection', () => stores.shrinkCaches()],
      ['C heap', () => (allocator.tuned ? trimHeap() : undefined)],
    ],
    log,
  });
  loop.addAlertSource(() => memoryBudget.alerts());
  // Only the loop's thread keeps normal priority; the C heap is trimmed between ticks (loopFirst.ts).
  const stopKeepingLoopFirst = keepTheLoopFirst(loop, allocator, clock, log);
  return {
    perception,
    link,
    loop,
    connections,
    stores,
    worldModelLearning: learning,
    teaching,
    memoryBudget,
    cockpit,
    learnerSteps: () => ({ policy: improver.stepsTaken(), worldModel: learning?.status().trainSteps ?? 0 }),
    learnerTeaching: () => improver.heldTeaching(),
    shutdown(beforeLink = []) {
      // The robot's stop comes first and must succeed (it is sent before close() first awaits); after it,
      // a part that fails to close is reported and the rest still close.
      const loopClosed = loop.close();
      stopKeepingLoopFirst();
      stopImagining?.();
      return closeInOrder(
        [
          ['the encoders', () => loopClosed],
          ['the memory budget', () => memoryBudget.stop()],
          ['the world model’s learner', async () => learning?.close()],
          ['the learning session', () => teaching.close()],
          ['the recording and the memory', () => stores.close()],
          ...beforeLink,
          ['the robot link', () => link.close()],
          ['the robot', () => connections.close()],
        ],
        log,
      );
    },
  };
}

/** The safety filter's interventions, logged at most once a second so a clipping policy cannot flood the log. */
function logClipping(loop: ControlLoop, log: Logger): void {
  let lastLoggedMs = -Infinity;
  let since = 0;
  loop.onSent((sent) => {
    if (!sent.clipped) return;
    since++;
    if (sent.atMs - lastLoggedMs < 1000) return;
    log.info({ driver: sent.driver, requested: sent.requested, sent: sent.command, clippedSinceLastLog: since }, 'safety filter clipped a command');
    lastLoggedMs = sent.atMs;
    since = 0;
  });
}
