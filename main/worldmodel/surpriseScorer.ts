// The surprise ratio the cockpit shows. The model's prediction error, averaged over the whole embedding,
// drowns a shove (felt by the proprioception floats alone) in the camera's ordinary misses; so each
// slot's error is measured against its own usual level — a slowly adapting mean whose updates are
// capped at ten times that level, so a rare spike barely moves it — and the tick's ratio is the most
// surprised slot's, named by its modality. The meter then holds that ratio's peak for a second, so a
// one-tick event stays in view.
//
// The usual level is an arithmetic mean, not a geometric one: slots of a few floats (the liveness
// slots: two each) have errors spread over decades, whose geometric mean lies far below their typical
// error, so their ordinary ticks read ten or more times "usual" and crowded out every other slot's
// surprise (shove AUROC 0.75 against 0.87 with the arithmetic mean on the same model; docs/worldmodel.md).
import { SURPRISE_ALARM_RATIO, UNTRAINED_VERSION, type Belief } from '../core/belief.ts';
import type { EmbeddingSlot } from '../core/perception.ts';
import { DEFAULT_SURPRISE_HOLD_MS, SurpriseMeter } from './surpriseMeter.ts';

export interface SurpriseRatioScorerOptions {
  /** Ticks over which a modality's usual error level adapts (about 30 s at 10 Hz). */
  adaptTicks: number;
  holdMs: number;
}

export const DEFAULT_SURPRISE_RATIO_SCORER_OPTIONS: SurpriseRatioScorerOptions = { adaptTicks: 300, holdMs: DEFAULT_SURPRISE_HOLD_MS };

export interface SurpriseRatio {
  /** This tick: the largest ratio of a modality's error to its usual error. */
  tick: number;
  /** What the cockpit shows: the tick ratios' peak over the hold time. */
  shown: number;
  /** The modality behind `tick`. */
  slot: string;
}

/** A tick's surprise as the cockpit shows it and the recording keeps it: the ratio with its modality, beside the KL. */
export interface ShownSurprise {
  surpriseRatio: number;
  modality: string;
  surpriseNats: number;
  predictionError: number;
  worldModelVersion: string;
}

/** What the cockpit's status shows of a tick's surprise: the ratio with its modality, and whether it raises the alarm. */
export interface SurpriseStatus {
  surpriseRatio: number;
  surpriseModality: string;
  surpriseAlarm: boolean;
  surpriseNats: number;
  predictionError: number;
}

export function surpriseStatus(shown: ShownSurprise, alarmRatio: number = SURPRISE_ALARM_RATIO): SurpriseStatus {
  return {
    surpriseRatio: shown.surpriseRatio,
    surpriseModality: shown.modality,
    surpriseAlarm: shown.surpriseRatio >= alarmRatio,
    surpriseNats: shown.surpriseNats,
    predictionError: shown.predictionError,
  };
}

/** Keeps a usual level from being exactly zero, where a ratio would be infinite. */
const ERROR_FLOOR = 1e-9;
/** An update to the usual level counts an error of at most this many times that level. */
const UPDATE_CAP = 10;

/**
 * A slot the surprise scores. `byDimension`: each of its floats keeps its own usual error, and the
 * slot's ratio is the root mean square of the floats' ratios (over DIMENSION_RMS_SCALE), so one float
 * that misses by far counts, where in the slot's mean error the floats that predict well hide it:
 * a shove moves a few of proprioception's 23 floats (its peaks), the rest hardly.
 */
export interface ScoredSlot extends EmbeddingSlot {
  byDimension?: boolean;
  /**
   * Scored on the error of the change since the previous tick (Belief.changeErrors) rather than of the
   * prediction: for a slot whose one-step prediction misses by more than holding its last value would,
   * the decoder's steady blur, the same from tick to tick, hides what changed (the LiDAR's; docs/worldmodel.md).
   */
  change?: boolean;
}

/**
 * The root mean square of ratios is never below their mean (on ordinary ticks, about this much above
 * it): a by-dimension slot's ratio is divided by it so its ordinary level stays near the other
 * slots'. Chosen on training arenas' events among 1, 1.2, 1.5, 2, 3 (docs/worldmodel.md).
 */
export const DIMENSION_RMS_SCALE = 1.2;

export class SurpriseRatioScorer {
  /** Per slot: its usual error (one), or each of its floats' (byDimension). */
  private readonly usual: Float64Array[];
  /** Per slot: the ticks its errors were numbers and taught its usual level. */
  private readonly learned: number[];
  private readonly meter: SurpriseMeter;
  /** The weights' version of the last belief scored. */
  private lastVersion: string | undefined;

  constructor(
    private readonly slots: readonly ScoredSlot[],
    private readonly options: SurpriseRatioScorerOptions = DEFAULT_SURPRISE_RATIO_SCORER_OPTIONS,
  ) {
    if (slots.length === 0) throw new RangeError('the surprise ratio needs at least one embedding slot');
    if (!(options.adaptTicks >= 1)) throw new RangeError(`adaptTicks must be ≥ 1, got ${options.adaptTicks}`);
    this.usual = slots.map((slot) => new Float64Array(slot.byDimension ? slot.size : 1));
    this.learned = slots.map(() => 0);
    this.meter = new SurpriseMeter(options.holdMs);
  }

  /**
   * Scores one tick's per-dimension errors (and the errors of the change, for the slots scored on it;
   * without them those slots sit this tick out), then lets the usual levels learn from them.
   */
  score(dimensionErrors: Float32Array, timeMs: number, changeErrors?: Float32Array): SurpriseRatio {
    // Each slot's errors as its usual levels are kept: the slot's mean, or every float's own.
    const errors = this.slots.map(({ offset, size, byDimension, change }) => {
      const source = change ? changeErrors : dimensionErrors;
      if (source === undefined) return new Float32Array(byDimension ? size : 1).fill(Number.NaN);
      if (offset + size > source.length) throw new RangeError(`slot at ${offset}+${size} lies beyond the ${source.length} errors given`);
      const own = source.subarray(offset, offset + size);
      if (byDimension) return own;
      let sum = 0;
      for (const error of own) sum += error;
      return Float32Array.of(sum / size);
    });
    // A slot's first tick has no usual level to compare with: its ratio is 1, as unsurprising as usual.
    const ratios = errors.map((own, index) => {
      if (this.learned[index] === 0) return own.every(Number.isFinite) ? 1 : Number.NaN;
      const usual = this.usual[index]!;
      if (!this.slots[index]!.byDimension) return own[0]! / Math.max(usual[0]!, ERROR_FLOOR);
      let squares = 0;
      own.forEach((error, i) => (squares += (error / Math.max(usual[i]!, ERROR_FLOOR)) ** 2));
      return Math.sqrt(squares / own.length) / DIMENSION_RMS_SCALE;
    });
    // A slot whose error is not a number (a model whose weights went bad) names no surprise and never
    // stops the tick: the most surprised slot is chosen among the others; with none, the tick reads NaN,
    // which the meter ignores.
    let most = -1;
    ratios.forEach((ratio, index) => {
      if (Number.isFinite(ratio) && (most < 0 || ratio > ratios[most]!)) most = index;
    });
    const tick = most < 0 ? Number.NaN : ratios[most]!;
    const slot = this.slots[Math.max(0, most)]!.name;
    // A running mean at first, then an exponential one: early levels are not one tick's accident. A
    // slot whose errors are not numbers this tick (no change measured yet, or weights gone bad) teaches
    // its level nothing, and its first numbers set it.
    errors.forEach((own, index) => {
      if (!own.every(Number.isFinite)) return;
      const learned = this.learned[index]!;
      const rate = Math.max(1 / (learned + 1), 1 / this.options.adaptTicks);
      const usual = this.usual[index]!;
      own.forEach((error, i) => {
        const counted = learned === 0 ? error : Math.min(error, UPDATE_CAP * usual[i]!);
        usual[i]! += rate * (counted - usual[i]!);
      });
      this.learned[index] = learned + 1;
    });
    return { tick, shown: this.meter.update(tick, timeMs), slot };
  }

  reset(): void {
    for (const usual of this.usual) usual.fill(0);
    this.learned.fill(0);
    this.meter.reset();
  }

  /** Scores a tick's belief: the shown ratio (held), the modality behind it, and the belief's own KL and error. */
  scoreBelief(belief: Belief, timeMs: number): ShownSurprise {
    // The usual levels so far were a random model's errors, far above a trained one's: the first
    // trained weights (a resumed checkpoint's, or the learner's first) start them afresh. Later
    // versions continue the same training and keep them.
    if (this.lastVersion === UNTRAINED_VERSION && belief.version !== UNTRAINED_VERSION) this.reset();
    this.lastVersion = belief.version;
    const ratio = this.score(belief.dimensionErrors, timeMs, belief.changeErrors);
    return {
      surpriseRatio: ratio.shown,
      modality: ratio.slot,
      surpriseNats: belief.surpriseNats,
      predictionError: belief.predictionError,
      worldModelVersion: belief.version,
    };
  }
}
