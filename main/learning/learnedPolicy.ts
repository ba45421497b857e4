// A trained actor as the control loop's policy: one frozen version of the weights with the feature
// statistics it was trained under. It drives by the distribution's mode, scaled to the speed limits,
// and never hands the loop a command that is not a finite number within them (the safety filter
// downstream clamps again: this is the policy's own manners, not the safety layer).
import type { Policy, PolicyInput } from '../core/policy.ts';
import * as tf from '@tensorflow/tfjs-core';
import type { DriveCommand } from '../core/messages.ts';
import { actorMode } from './actor.ts';
import { standardise, type FeatureNorm } from '../core/util/featureNorm.ts';
import { frozenWeights, type MlpShape } from './networks.ts';

export interface ActorSnapshot {
  version: string;
  shape: MlpShape;
  weights: Float32Array[];
  norm: FeatureNorm;
  /** What an action of 1 means: [max forward m/s, max turn rad/s]. */
  limits: readonly [number, number];
}

export class LearnedPolicy implements Policy {
  readonly version: string;
  private readonly weights: tf.Tensor[];
  private readonly features: Float32Array;
  /** Ticks at which the network gave something that is not a finite number (held at zero instead). */
  nonFiniteOutputs = 0;

  constructor(readonly snapshot: ActorSnapshot) {
    if (snapshot.norm.mean.length !== snapshot.shape.inputs)
      throw new RangeError(
        `policy ${snapshot.version}: feature statistics for ${snapshot.norm.mean.length} inputs, the network reads ${snapshot.shape.inputs}`,
      );
    this.version = snapshot.version;
    this.weights = frozenWeights(snapshot.shape, snapshot.weights);
    this.features = new Float32Array(snapshot.shape.inputs);
  }

  act({ embedding }: PolicyInput): DriveCommand {
    if (embedding.values.length !== this.features.length) return { linearMps: 0, angularRadps: 0 };
    this.features.set(embedding.values);
    standardise(this.snapshot.norm, this.features);
    const [forward, turn] = tf.tidy(() => actorMode(this.weights, tf.tensor2d(this.features, [1, this.features.length])).dataSync());
    return this.command(forward!, turn!);
  }

  /** An action in [−1, 1]² as a command within the limits; anything not finite is a stop. */
  command(forward: number, turn: number): DriveCommand {
    if (!Number.isFinite(forward) || !Number.isFinite(turn)) {
      this.nonFiniteOutputs++;
      return { linearMps: 0, angularRadps: 0 };
    }
    const [maxForward, maxTurn] = this.snapshot.limits;
    return { linearMps: clamp(forward, 1) * maxForward, angularRadps: clamp(turn, 1) * maxTurn };
  }

  dispose(): void {
    tf.dispose(this.weights);
  }
}

function clamp(value: number, limit: number): number {
  return Math.max(-limit, Math.min(limit, value));
}
