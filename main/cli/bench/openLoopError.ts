// How well a world model predicts the embedding open loop (given only the actions), 1 to H ticks
// ahead, against the laziest forecast there is: the last embedding it saw, held. A ratio below 1
// means the model has learnt something about how the world moves; plain arrays, no TF.js.

export const DEFAULT_HORIZON_TICKS = 10;

export interface HorizonError {
  horizonTicks: number;
  /** Mean over windows of the mean squared error per embedding element. */
  modelMse: number;
  holdLastMse: number;
  /** modelMse / holdLastMse (NaN when both are 0). */
  ratio: number;
  windows: number;
}

export interface OpenLoopErrorSummary {
  /** Σ_h modelMse / Σ_h holdLastMse over horizons 1..H. */
  ratio: number;
  perHorizon: HorizonError[];
}

export class OpenLoopErrorTally {
  private readonly modelSquaredErrorSums: Float64Array;
  private readonly holdLastSquaredErrorSums: Float64Array;
  private readonly windowCounts: Float64Array;

  constructor(
    readonly embeddingSize: number,
    readonly horizonTicks: number = DEFAULT_HORIZON_TICKS,
  ) {
    if (!(Number.isInteger(embeddingSize) && embeddingSize > 0)) throw new RangeError(`embeddingSize must be a whole number > 0, got ${embeddingSize}`);
    if (!(Number.isInteger(horizonTicks) && horizonTicks > 0)) throw new RangeError(`horizonTicks must be a whole number > 0, got ${horizonTicks}`);
    this.modelSquaredErrorSums = new Float64Array(horizonTicks);
    this.holdLastSquaredErrorSums = new Float64Array(horizonTicks);
    this.windowCounts = new Float64Array(horizonTicks);
  }

  /**
   * One open-loop window. `actual` holds a sequence's embeddings (ticks × embeddingSize); the model
   * saw them up to and including `lastSeenTick`, then predicted `predicted` (h × embeddingSize, h ≤
   * horizonTicks) for ticks lastSeenTick + 1 … lastSeenTick + h from the actions alone.
   */
  add(actual: Float32Array, lastSeenTick: number, predicted: Float32Array): void {
    const size = this.embeddingSize;
    if (actual.length % size !== 0) throw new RangeError(`actual has ${actual.length} values, not a whole number of ${size}-long embeddings`);
    if (predicted.length % size !== 0) throw new RangeError(`predicted has ${predicted.length} values, not a whole number of ${size}-long embeddings`);
    const ticks = actual.length / size;
    const horizons = predicted.length / size;
    if (horizons > this.horizonTicks) throw new RangeError(`predicted reaches ${horizons} ticks ahead, past the horizon of ${this.horizonTicks}`);
    if (!(Number.isInteger(lastSeenTick) && lastSeenTick >= 0 && lastSeenTick + horizons < ticks)) {
      throw new RangeError(`a window from tick ${lastSeenTick} reaching ${horizons} ticks ahead does not fit in ${ticks} ticks`);
    }
    const heldStart = lastSeenTick * size;
    for (let h = 1; h <= horizons; h++) {
      const targetStart = (lastSeenTick + h) * size;
      const predictedStart = (h - 1) * size;
      let modelSum = 0;
      let holdLastSum = 0;
      for (let k = 0; k < size; k++) {
        const target = actual[targetStart + k]!;
        modelSum += (predicted[predictedStart + k]! - target) ** 2;
        holdLastSum += (actual[heldStart + k]! - target) ** 2;
      }
      this.modelSquaredErrorSums[h - 1]! += modelSum / size;
      this.holdLastSquaredErrorSums[h - 1]! += holdLastSum / size;
      this.windowCounts[h - 1]!++;
    }
  }

  /** Throws when some horizon has no window: its error would be a guess. */
  summary(): OpenLoopErrorSummary {
    const perHorizon: HorizonError[] = [];
    let modelTotal = 0;
    let holdLastTotal = 0;
    for (let h = 1; h <= this.horizonTicks; h++) {
      const windows = this.windowCounts[h - 1]!;
      if (windows === 0) throw new RangeError(`no window reached ${h} ticks ahead: add windows that cover every horizon up to ${this.horizonTicks}`);
      const modelMse = this.modelSquaredErrorSums[h - 1]! / windows;
      const holdLastMse = this.holdLastSquaredErrorSums[h - 1]! / windows;
      perHorizon.push({ horizonTicks: h, modelMse, holdLastMse, ratio: modelMse / holdLastMse, windows });
      modelTotal += modelMse;
      holdLastTotal += holdLastMse;
    }
    return { ratio: modelTotal / holdLastTotal, perHorizon };
  }
}
