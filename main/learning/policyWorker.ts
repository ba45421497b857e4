// The policy learner's worker thread: it holds the ticks and the networks and trains them when the
// core asks for a round, so that the control loop never waits for a gradient step (DESIGN §1).
import { parentPort } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs-core';
import type { ActorSnapshot } from './learnedPolicy.ts';
import { frozenWeights } from './networks.ts';
import { runBehindTheLoop } from '../core/runtime/backgroundPriority.ts';
import { loadLearnerBackend } from '../worldmodel/learner/learnerBackend.ts';
import type { PackedTicks } from './memoryTeaching.ts';
import { PolicyLearner, type PolicyLearnerOptions } from './policyLearner.ts';
import { retrainFresh } from './retrainFresh.ts';
import type { FromPolicyWorker, ToPolicyWorker } from './policyWorkerProtocol.ts';
import { TickBuffer } from './tickBuffer.ts';
import { Rssm } from '../worldmodel/rssm.ts';
import { disposeWeights, loadNamedWeights } from '../worldmodel/rssmWeights.ts';

const port = parentPort;
if (port === null) throw new Error('policyWorker.ts runs only as a worker thread');
// Training gives way to the control loop's thread whenever both want a core (a no-op off Linux).
runBehindTheLoop();

let buffer: TickBuffer | undefined;
let learner: PolicyLearner | undefined;
let learnerOptions: Partial<PolicyLearnerOptions> = {};
/** The world model imagined rollouts run in: the world-model learner's weights as the core last passed them. */
let worldModel: Rssm | undefined;
const send = (message: FromPolicyWorker) => port.postMessage(message);
/** The versions this worker has published, newest last (a few), and the one that drives: the gate compares with it. */
const published = new Map<string, tf.Tensor[]>();
const KEPT_PUBLISHED = 12;
let drivingVersion: string | undefined;

/** Publishes the learner's weights as `version`, kept to compare later candidates with. */
function publish(version: string): ActorSnapshot {
  const snapshot = learner!.publish(version);
  keepPublished(version, frozenWeights(snapshot.shape, snapshot.weights));
  return snapshot;
}

function keepPublished(version: string, weights: tf.Tensor[]): void {
  const before = published.get(version);
  if (before !== undefined) tf.dispose(before);
  published.delete(version);
  published.set(version, weights);
  // The oldest go first; the driving version stays whatever its age.
  for (const [name, weights] of published) {
    if (published.size <= KEPT_PUBLISHED) break;
    if (name === drivingVersion) continue;
    tf.dispose(weights);
    published.delete(name);
  }
}

// One message at a time, in the order sent: the core posts ticks (and a restore) as soon as it has
// them, and those that arrive while `init` is still loading the backend wait for it instead of being
// refused, so what a round learns from never depends on how fast this thread started.
let handled: Promise<void> = Promise.resolve();
port.on('message', (message: ToPolicyWorker) => {
  handled = handled.then(() =>
    handle(message).catch((error: unknown) =>
      send({ type: 'failed', id: message.type === 'round' || message.type === 'retrain' ? message.id : undefined, message: (error as Error).message }),
    ),
  );
});

async function handle(message: ToPolicyWorker): Promise<void> {
  switch (message.type) {
    case 'init': {
      const backend = await loadLearnerBackend();
      buffer = new TickBuffer(message.capacityTicks, message.embeddingSize);
      learnerOptions = message.learner;
      learner = new PolicyLearner(buffer, learnerOptions);
      send({ type: 'ready', backend: backend.backend });
      return;
    }
    case 'ticks':
      if (buffer === undefined) throw new Error('ticks before init');
      for (const tick of message.ticks) buffer.add(tick);
      return;
    case 'restore':
      if (learner === undefined) throw new Error('a restore before init');
      learner.restore(message.snapshot, message.reward, message.critics);
      keepPublished(message.snapshot.version, frozenWeights(message.snapshot.shape, message.snapshot.weights));
      return;
    case 'driving':
      drivingVersion = message.version;
      return;
    case 'round': {
      if (learner === undefined) throw new Error('a round before init');
      const report = learner.train(message.steps, message.signals);
      if (report.actorSteps === 0) {
        send({
          type: 'round-done',
          id: message.id,
          candidate: undefined,
          reason: report.operatorTicks === 0 && learner.featureNorm !== undefined ? 'nothing to learn from yet' : 'too few ticks yet',
        });
        return;
      }
      const evaluation = learner.evaluateCandidate(drivingVersion === undefined ? undefined : published.get(drivingVersion), message.signals);
      const snapshot = publish(message.version);
      const taughtRewardSpread = learner.taughtRewardSpread(message.signals);
      send({
        type: 'round-done',
        id: message.id,
        candidate: {
          snapshot,
          reward: learner.rewardWeights(),
          critics: learner.criticWeights(),
          evaluation,
          operatorTicks: report.operatorTicks,
          taughtRewardSpread,
        },
        reason: undefined,
      });
      return;
    }
    case 'world-model': {
      if (learner === undefined) throw new Error('a world model before init');
      if (worldModel !== undefined && JSON.stringify(worldModel.config) !== JSON.stringify(message.config)) {
        learner.useWorldModel(undefined);
        disposeWeights(worldModel.weights);
        worldModel = undefined;
      }
      const rssm = worldModel ?? new Rssm(message.config, 1);
      try {
        loadNamedWeights(rssm.weights, message.weights);
        learner.useWorldModel(rssm);
      } catch (error) {
        if (rssm !== worldModel) disposeWeights(rssm.weights);
        throw error;
      }
      worldModel = rssm;
      return;
    }
    case 'retrain': {
      if (learner === undefined) throw new Error('a retrain before init');
      // With the off-policy critics on, the slow path fine-tunes: a long round of the live learner (its
      // actor, critics and reward ensemble go on from where they are; a fresh actor would throw away what
      // the critics taught it) on the ticks it holds, with every standing correction the memory keeps.
      if (learner.offPolicy !== undefined) {
        const report = learner.train(message.steps, message.signals);
        const evaluation = learner.evaluateCandidate(drivingVersion === undefined ? undefined : published.get(drivingVersion), message.signals);
        if (report.actorSteps === 0) {
          send({ type: 'round-done', id: message.id, candidate: undefined, reason: 'there are too few driven ticks' });
          return;
        }
        send({
          type: 'round-done',
          id: message.id,
          candidate: {
            snapshot: publish(message.version),
            reward: learner.rewardWeights(),
            critics: learner.criticWeights(),
            evaluation,
            operatorTicks: report.operatorTicks,
            taughtRewardSpread: learner.taughtRewardSpread(message.signals),
          },
          reason: undefined,
        });
        return;
      }
      // The slow path, trained in one go (the core starts no fast round meanwhile); the fast path then
      // carries on from its weights.
      const retrained = retrainFresh(bufferOf(message.ticks), learnerOptions, message.signals, message.steps, message.version, worldModel);
      if (!retrained.ok) {
        send({ type: 'round-done', id: message.id, candidate: undefined, reason: retrained.reason });
        return;
      }
      learner.restore(retrained.snapshot, retrained.reward);
      keepPublished(retrained.snapshot.version, frozenWeights(retrained.snapshot.shape, retrained.snapshot.weights));
      // Measured on the live ticks this learner holds: where the memory's feedback reaches them.
      const taughtRewardSpread = learner.taughtRewardSpread(message.signals);
      send({
        type: 'round-done',
        id: message.id,
        candidate: { snapshot: retrained.snapshot, reward: retrained.reward, operatorTicks: retrained.report.operatorTicks, taughtRewardSpread },
        reason: undefined,
      });
      return;
    }
  }
}

function bufferOf(ticks: PackedTicks): TickBuffer {
  const held = new TickBuffer(Math.max(1, ticks.count), ticks.embeddingSize);
  for (let index = 0; index < ticks.count; index++) {
    held.add({
      episodeId: ticks.episodeIds[index]!,
      step: ticks.steps[index]!,
      embedding: ticks.embeddings.subarray(index * ticks.embeddingSize, (index + 1) * ticks.embeddingSize),
      action: { linearMps: ticks.actions[index * 2]!, angularRadps: ticks.actions[index * 2 + 1]! },
      driver: ticks.drivers[index]!,
    });
  }
  return held;
}
