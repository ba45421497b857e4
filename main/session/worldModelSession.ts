// The world model in a running core: the filter the control loop steps each tick (here, in the
// core's thread), and the learner that trains a copy from memory in a worker thread and hands its
// newer weights over between ticks. Either failing leaves the robot driving; the operator is told.
import { reinsDataFolder } from '../memory/memoryLocation.ts';
import type { TickReport } from '../core/tickReport.ts';
import type { CoreAlert } from '../core/alert.ts';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { WorldModelStatus } from '../core/contract.ts';
import type { TickSpace } from '../memory/tickSchema.ts';
import type { SurpriseEvent } from '../recording/reinsEvents.ts';
import type { BackendSelection } from '../worldmodel/backend/selectBackend.ts';
import { Learner } from '../worldmodel/learner/learner.ts';
import type { WorldModelConfig } from '../worldmodel/worldModelConfig.ts';
import type { NamedArray } from '../worldmodel/checkpointFile.ts';
import type { WorldModelArgs } from './worldModelOptions.ts';
import type { EmbeddingSlot, Perception } from '../core/perception.ts';
import { WorldModelFilter } from '../worldmodel/worldModelFilter.ts';
import { integratePath, PATH_HORIZON_STEPS, readoutTrusted, VelocityReadout, type PredictedPath } from '../worldmodel/pathPrediction.ts';
import type { DriveCommand } from '../core/messages.ts';
import type { ControlLoop } from '../loop/controlLoop.ts';
import { restoreNewestCheckpoint } from '../worldmodel/learner/learnerCheckpoints.ts';
import { namedWeights } from '../worldmodel/rssmWeights.ts';
import { selectSessionBackend } from './worldModelBackend.ts';
import { createSurpriseScorer, sessionWorldModelConfig, surpriseStatus, type SurpriseStatus } from './worldModelParts.ts';

export interface LiveWorldModel {
  filter: WorldModelFilter;
  /** The embedding's modalities, for a surprise ratio that weighs each against its own usual error. */
  slots: readonly EmbeddingSlot[];
  config: WorldModelConfig;
  backend: BackendSelection;
}

/** The loop's filter, on the fastest TF.js backend that loads here. */
export async function loadWorldModel(
  args: WorldModelArgs,
  perception: Pick<Perception, 'embeddingSize' | 'slots'>,
  log: Logger,
): Promise<LiveWorldModel | undefined> {
  if (args.preset === undefined) return undefined;
  const backend = await selectSessionBackend();
  const config = sessionWorldModelConfig(args.preset, { embeddingSize: perception.embeddingSize });
  log.info({ preset: config.preset, backend: backend.backend, tried: backend.tried }, 'world model loaded');
  return { filter: new WorldModelFilter(config), slots: perception.slots, config, backend };
}

export interface WorldModelLearning {
  /** Told each time the filter takes the learner's newer weights (the policy learner imagines with them). */
  onWeights(listener: (weights: readonly NamedArray[], version: string) => void): () => void;
  status(): WorldModelStatus;
  alerts(): CoreAlert[];
  /**
   * Tells the learner of every tick memory has written, and resolves once it has trained as much as
   * its replay budget allows for them: a lockstep core awaits it so that learning cannot fall behind.
   */
  catchUp(): Promise<void>;
  /** Holds training (the core's memory is near its budget) until `resume()`; ticks written meanwhile are trained on after. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export function defaultCheckpointFolder(dataHome: string): string {
  return join(dataHome, 'world-model');
}

/**
 * Starts the learner on the memory the loop writes, and after each tick hands the filter any newer
 * weights and tells the learner how many ticks memory has taken since.
 */
export function startWorldModelLearning(
  live: LiveWorldModel,
  loop: ControlLoop,
  memory: { uri: string; space: TickSpace; writtenTicks: () => number },
  checkpointDir: string,
  args: WorldModelArgs,
  log: Logger,
  /** Where each tick's surprise goes besides the status (the session's recording). */
  recordSurprise?: (surprise: SurpriseEvent, atMs: number) => void,
): WorldModelLearning {
  const learner = Learner.start({
    memoryUri: memory.uri,
    tickSpace: memory.space,
    preset: live.config.preset,
    configOverrides: { actionLimits: live.config.actionLimits },
    replayRatio: args.replayRatio,
    batchSize: 16,
    sequenceLength: 64,
    checkpointDir,
    checkpointIntervalSteps: 500,
    weightPublishIntervalSteps: 50,
    seed: 1,
  });
  let reported = memory.writtenTicks();
  let lastBelief: SurpriseStatus | undefined;
  const scorer = createSurpriseScorer(live.slots);
  let refusedNote: string | undefined;
  learner.on('ready', (ready) => {
    if (ready.checkpointsRefused.length > 0) {
      refusedNote = `Checkpoint refused, training started fresh: ${ready.checkpointsRefused[0]}`;
      log.warn({ refused: ready.checkpointsRefused }, 'world-model checkpoints refused; training starts fresh');
    }
    log.info(
      { backend: ready.backend, openblasCore: ready.openblasCore, parameters: ready.parameterCount, resumedFrom: ready.resumedFrom?.version },
      'world-model learner ready',
    );
  });
  learner.on('problem', (message) => log.warn({ message }, 'world-model learner'));
  const paths = new PathPredictions(live, loop.rateHz);
  const weightListeners = new Set<(weights: readonly NamedArray[], version: string) => void>();
  const noteWritten = () => {
    const written = memory.writtenTicks();
    if (written > reported) {
      learner.noteTicksWritten(written - reported);
      reported = written;
    }
  };
  const stopTicks = loop.onTick((report) => {
    paths.observe(report, report.commandInEffect?.command);
    if (report.belief) {
      const shown = scorer.scoreBelief(report.belief, report.frame.timeMs);
      lastBelief = surpriseStatus(shown);
      recordSurprise?.(shown, report.frame.timeMs);
    }
    const weights = learner.takeWeights();
    if (weights) {
      try {
        live.filter.loadWeights(weights.weights, weights.version);
        for (const listener of weightListeners) listener(weights.weights, weights.version);
      } catch (error) {
        log.warn({ err: error }, 'the learner’s weights did not fit the filter');
      }
    }
    noteWritten();
  });
  return {
    onWeights(listener: (weights: readonly NamedArray[], version: string) => void): () => void {
      weightListeners.add(listener);
      return () => weightListeners.delete(listener);
    },
    status(): WorldModelStatus {
      const status = learner.status();
      const trained = status.lastTrained;
      const tried = live.backend.tried.map(({ backend, reason }) => `${backend}: ${reason}`).join('; ');
      return {
        preset: live.config.preset,
        backend: live.backend.backend,
        ...(tried ? { backendNote: tried } : {}),
        version: live.filter.version,
        learner: status.state,
        ...(status.waitingFor ? { waitingFor: status.waitingFor } : {}),
        trainSteps: trained?.step ?? status.ready?.resumedFrom?.step ?? 0,
        ...(trained
          ? {
              stepsPerSec: trained.stepsPerSec,
              stepMs: trained.stepMs,
              loss: trained.losses.total,
              decoderLoss: trained.losses.decoder,
              klNats: trained.losses.klNats,
              replayRatio: trained.replayRatio,
            }
          : {}),
        ...(lastBelief ?? {}),
        ...paths.status(),
        ...(status.lastError ? { note: status.lastError } : refusedNote ? { note: refusedNote } : {}),
      };
    },
    alerts(): CoreAlert[] {
      const status = learner.status();
      if (status.state !== 'failed') return [];
      return [
        {
          key: 'world-model-learner',
          severity: 'warn',
          message: `The world model stopped learning: ${status.lastError ?? 'the learner failed'}`,
          hint: 'Driving is unaffected; the world model keeps its last weights. Restart the core to try again.',
        },
      ];
    },
    catchUp() {
      noteWritten();
      return learner.caughtUp();
    },
    pause: () => learner.pause(),
    resume: () => learner.resume(),
    async close() {
      stopTicks();
      paths.close();
      await learner.stop();
    },
  };
}

/**
 * Review mode's world model: the loop's filter with the newest trained weights the learner saved for
 * these encoders, and no learner (a review trains nothing). Without a usable checkpoint the filter
 * would only say what an untrained model thinks, so there is none, and the log says why.
 */
export async function loadReviewWorldModel(
  args: WorldModelArgs,
  perception: Pick<Perception, 'embeddingSize' | 'slots' | 'version'>,
  log: Logger,
): Promise<WorldModelFilter | undefined> {
  const live = await loadWorldModel(args, perception, log);
  if (!live) return undefined;
  const dir = defaultCheckpointFolder(reinsDataFolder());
  const { restored, refused } = await restoreNewestCheckpoint(dir, { config: live.config, encoderVersion: perception.version }, 1);
  for (const reason of refused) log.warn({ reason }, 'a saved world model was not used');
  if (!restored) {
    log.info({ dir }, 'no trained world model for these encoders: the review runs without one');
    return undefined;
  }
  const weights = namedWeights(restored.model.rssm.weights).map(([name, variable]) => ({
    name,
    shape: [...variable.shape],
    values: (variable.dataSync() as Float32Array).slice(),
  }));
  live.filter.loadWeights(weights, restored.from.version);
  restored.model.trainer.dispose?.();
  log.info({ version: restored.from.version }, 'world model loaded for the review');
  return live.filter;
}

/** How often the predicted path is imagined again (each costs ~13 ms of the core's thread for wm-xs). */
const PATH_EVERY_MS = 500;

/**
 * The predicted path in the status: the readout learns from every tick; twice a second, after the
 * tick (never inside it), the filter imagines the horizon under the command in effect.
 */
class PathPredictions {
  private readonly readout: VelocityReadout | undefined;
  private latest: PredictedPath | undefined;
  private lastRunMs = -Infinity;
  private pending: NodeJS.Immediate | undefined;

  constructor(
    private readonly live: LiveWorldModel,
    private readonly rateHz: number,
  ) {
    const proprio = live.slots.find((slot) => slot.name === 'proprio');
    this.readout = proprio && new VelocityReadout({ offset: proprio.offset, size: proprio.size });
  }

  observe(report: TickReport, command: DriveCommand | undefined): void {
    const odom = report.frame.odom?.received.msg;
    if (odom && this.readout) this.readout.observe(report.embedding.values, { linearMps: odom.linearMps, angularRadps: odom.angularRadps });
    if (report.frame.timeMs - this.lastRunMs < PATH_EVERY_MS || this.pending) return;
    this.lastRunMs = report.frame.timeMs;
    const held = command ?? { linearMps: 0, angularRadps: 0 };
    this.pending = setImmediate(() => {
      this.pending = undefined;
      this.latest = this.predict(held);
    });
  }

  status(): Pick<WorldModelStatus, 'predictedPath' | 'pathNote'> {
    const quality = this.readout?.fitQuality();
    if (!this.readout) return { pathNote: 'No path: the encoders have no proprioception to read speed from' };
    if (this.live.filter.untrained) return { pathNote: 'No path yet: the world model has not been trained' };
    if (!quality) return { pathNote: 'No path yet: learning to read speed from the embedding' };
    if (!readoutTrusted(this.readout))
      return { pathNote: `No path: speed reads from the embedding too poorly (R² ${quality.linear.toFixed(2)} / ${quality.angular.toFixed(2)})` };
    if (!this.latest) return { pathNote: 'No path: the world model’s imagination failed' };
    return { predictedPath: { ...this.latest, readoutR2: Math.min(quality.linear, quality.angular) } };
  }

  close(): void {
    if (this.pending) clearImmediate(this.pending);
  }

  private predict(command: DriveCommand): PredictedPath | undefined {
    if (!this.readout?.fitQuality() || this.live.filter.untrained) return undefined;
    try {
      const imagined = this.live.filter.imagine(Array.from({ length: PATH_HORIZON_STEPS }, () => command));
      return integratePath(imagined, this.live.config.embeddingSize, this.readout, 1 / this.rateHz);
    } catch {
      return undefined;
    }
  }
}
