// The world model's predicted path, for the cockpit's top-down view: the filter imagines the next
// few seconds under the command in effect, and a linear readout turns each imagined embedding's
// proprioception slot into a speed and turn rate, integrated into positions in the robot's frame.
// The readout is fitted online (ridge regression) on what the robot really did: each tick's
// embedding against its odometry. Its fit on held-out ticks (R²) is reported; below a floor, or
// while the world model is untrained, no path is shown rather than a made-up one.
import type { DriveCommand } from '../core/messages.ts';
import { solveSymmetricPositiveDefinite } from '../core/util/cholesky.ts';

export interface ReadoutOptions {
  /** Where the proprioception sits in the embedding. */
  offset: number;
  size: number;
  /** Ridge penalty on the weights (not the bias). */
  ridge: number;
  /** Ticks observed before the first fit. */
  minSamples: number;
  /** Refit after this many more ticks. */
  refitEvery: number;
  /** Every `holdOutEvery`-th tick is held out of the fit and scores it. */
  holdOutEvery: number;
}

/** Ticks the cockpit's path imagines ahead: 2 s at the loop's 10 Hz. */
export const PATH_HORIZON_STEPS = 20;

/** Below this held-out R² (speed and turn rate alike), the readout is not trusted to draw a path. */
export const MIN_READOUT_R2 = 0.8;

/** Whether a readout's fit is good enough to draw a path with. */
export function readoutTrusted(readout: Pick<VelocityReadout, 'fitQuality'>): boolean {
  const quality = readout.fitQuality();
  return quality !== undefined && quality.linear >= MIN_READOUT_R2 && quality.angular >= MIN_READOUT_R2;
}

export const DEFAULT_READOUT_OPTIONS: Omit<ReadoutOptions, 'offset' | 'size'> = { ridge: 1e-3, minSamples: 200, refitEvery: 100, holdOutEvery: 5 };

/** Ridge regression from the proprioception slot (plus a bias) to [linear m/s, angular rad/s]. */
export class VelocityReadout {
  private readonly options: ReadoutOptions;
  private readonly dims: number;
  /** Sums over the fitted ticks: XᵀX (dims × dims) and XᵀY (dims × 2). */
  private readonly xtx: Float64Array;
  private readonly xty: Float64Array;
  /** Held-out ticks, kept to score each fit: features then targets. */
  private readonly heldOut: Array<{ x: Float64Array; y: [number, number] }> = [];
  private weights: Float64Array | undefined;
  private samples = 0;
  private samplesAtFit = 0;
  private scores: [number, number] | undefined;

  constructor(options: Pick<ReadoutOptions, 'offset' | 'size'> & Partial<ReadoutOptions>) {
    this.options = { ...DEFAULT_READOUT_OPTIONS, ...options };
    this.dims = this.options.size + 1;
    this.xtx = new Float64Array(this.dims * this.dims);
    this.xty = new Float64Array(this.dims * 2);
  }

  /** One tick: the embedding seen and the velocity odometry measured. Non-finite values are ignored. */
  observe(embedding: Float32Array, measured: DriveCommand): void {
    if (!Number.isFinite(measured.linearMps) || !Number.isFinite(measured.angularRadps)) return;
    const x = this.features(embedding, 0);
    if (x.some((value) => !Number.isFinite(value))) return;
    this.samples++;
    if (this.samples % this.options.holdOutEvery === 0) {
      this.heldOut.push({ x, y: [measured.linearMps, measured.angularRadps] });
      if (this.heldOut.length > 2000) this.heldOut.shift();
    } else {
      const d = this.dims;
      for (let a = 0; a < d; a++) {
        const xa = x[a]!;
        for (let b = 0; b < d; b++) this.xtx[a * d + b]! += xa * x[b]!;
        this.xty[a * 2]! += xa * measured.linearMps;
        this.xty[a * 2 + 1]! += xa * measured.angularRadps;
      }
    }
    if (this.samples >= this.options.minSamples && this.samples - this.samplesAtFit >= this.options.refitEvery) this.fit();
  }

  /** R² of [linear, angular] on held-out ticks at the last fit; undefined before the first. */
  fitQuality(): { linear: number; angular: number } | undefined {
    return this.scores && { linear: this.scores[0], angular: this.scores[1] };
  }

  /** The velocity an embedding (at `offset` in a flat array of embeddings) reads as; undefined before the first fit. */
  read(embeddings: Float32Array, start = 0): DriveCommand | undefined {
    return this.weights && this.apply(this.weights, this.features(embeddings, start));
  }

  private apply(w: Float64Array, x: Float64Array): DriveCommand {
    let linearMps = 0;
    let angularRadps = 0;
    for (let a = 0; a < this.dims; a++) {
      linearMps += x[a]! * w[a * 2]!;
      angularRadps += x[a]! * w[a * 2 + 1]!;
    }
    return { linearMps, angularRadps };
  }

  private features(embeddings: Float32Array, start: number): Float64Array {
    const x = new Float64Array(this.dims);
    for (let i = 0; i < this.options.size; i++) x[i] = embeddings[start + this.options.offset + i]!;
    x[this.options.size] = 1;
    return x;
  }

  private fit(): void {
    this.samplesAtFit = this.samples;
    const d = this.dims;
    const a = Float64Array.from(this.xtx);
    for (let i = 0; i < d - 1; i++) a[i * d + i]! += this.options.ridge * Math.max(1, this.samples);
    const solved = solveSymmetricPositiveDefinite(a, this.xty, d, 2);
    if (!solved) return;
    this.weights = solved;
    const predicted = this.heldOut.map((held) => this.apply(solved, held.x));
    this.scores = [
      rSquared(
        predicted.map((velocity) => velocity.linearMps),
        this.heldOut.map((held) => held.y[0]),
      ),
      rSquared(
        predicted.map((velocity) => velocity.angularRadps),
        this.heldOut.map((held) => held.y[1]),
      ),
    ];
  }
}

/** A path in the robot's frame (x forward, y left, metres), starting at the robot. */
export interface PredictedPath {
  pointsM: Array<[number, number]>;
  horizonSecs: number;
}

/**
 * Integrates imagined embeddings (steps × embeddingSize, flat) read as velocities into a path from
 * the robot's pose now. Undefined when the readout has not been fitted yet or reads nonsense.
 */
export function integratePath(
  imagined: Float32Array,
  embeddingSize: number,
  readout: Pick<VelocityReadout, 'read'>,
  dtSecs: number,
): PredictedPath | undefined {
  const steps = Math.floor(imagined.length / embeddingSize);
  const pointsM: Array<[number, number]> = [[0, 0]];
  let x = 0;
  let y = 0;
  let yaw = 0;
  for (let step = 0; step < steps; step++) {
    const velocity = readout.read(imagined, step * embeddingSize);
    if (!velocity || !Number.isFinite(velocity.linearMps) || !Number.isFinite(velocity.angularRadps)) return undefined;
    // Midpoint heading: exact for a constant turn rate over the step, to second order.
    const midYaw = yaw + (velocity.angularRadps * dtSecs) / 2;
    x += velocity.linearMps * Math.cos(midYaw) * dtSecs;
    y += velocity.linearMps * Math.sin(midYaw) * dtSecs;
    yaw += velocity.angularRadps * dtSecs;
    pointsM.push([x, y]);
  }
  return { pointsM, horizonSecs: steps * dtSecs };
}

function rSquared(predicted: readonly number[], actual: readonly number[]): number {
  if (actual.length < 2) return Number.NaN;
  const mean = actual.reduce((sum, value) => sum + value, 0) / actual.length;
  let residual = 0;
  let total = 0;
  actual.forEach((value, i) => {
    residual += (predicted[i]! - value) ** 2;
    total += (value - mean) ** 2;
  });
  return total === 0 ? Number.NaN : 1 - residual / total;
}
