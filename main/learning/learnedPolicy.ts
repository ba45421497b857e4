// A trained actor as the control loop's policy: one frozen version of the weights with the feature
// statistics it was trained under. It drives by the distribution's mode, scaled to the speed limits,
// and never hands the loop a command that is not a finite number within them (the safety filter
// downstream clamps again: this is the policy's own manners, not the safety layer).
import type { Policy, PolicyInput } from '../core/policy.ts';
import type { DriveCommand } from '../core/messages.ts';
import { standardise, type FeatureNorm } from '../core/util/featureNorm.ts';
import { applyMlpToRow, checkMlpWeights, type MlpShape } from './networks.ts';

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
  private readonly weights: Float32Array[];
  private readonly features: Float32Array;
  /** Ticks at which the network gave something that is not a finite number (held at zero instead). */
  nonFiniteOutputs = 0;

  constructor(readonly snapshot: ActorSnapshot) {
    if (snapshot.norm.mean.length !== snapshot.shape.inputs)
      throw new RangeError(
        `policy ${snapshot.version}: feature statistics for ${snapshot.norm.mean.length} inputs, the network reads ${snapshot.shape.inputs}`,
      );
    this.version = snapshot.version;
    checkMlpWeights(snapshot.shape, snapshot.weights);
    // Its own copy: a snapshot's arrays may be handed on (and their buffers transferred) after this.
    this.weights = snapshot.weights.map((values) => Float32Array.from(values));
    this.features = new Float32Array(snapshot.shape.inputs);
  }

  act({ embedding }: PolicyInput): DriveCommand {
    if (embedding.values.length !== this.features.length) return { linearMps: 0, angularRadps: 0 };
    this.features.set(embedding.values);
    standardise(this.snapshot.norm, this.features);
    // The mode, tanh(mean): the network's first two outputs are the mean's [forward, turn] (actor.ts).
    const out = applyMlpToRow(this.snapshot.shape, this.weights, this.features);
    return this.command(Math.tanh(out[0]!), Math.tanh(out[1]!));
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
    // Holds no tensors (the weights are arrays of its own).
  }
}

function clamp(value: number, limit: number): number {
  return Math.max(-limit, Math.min(limit, value));
}
