// The policy proposes an action each tick. Until a learned policy exists (the learning issue), the
// default is a transparent reactive baseline: cruise forward, steer toward open space, stop when
// the scan is missing or something is close ahead.
import type { DriveCommand } from '../links/messages.ts';
import type { ObservationFrame } from '../loop/synchroniser.ts';
import type { Embedding } from '../perception/perception.ts';
import type { Belief } from '../worldmodel/belief.ts';
import { scanSectorMinima, SCAN_SECTORS } from './scanSectors.ts';

/** What a policy sees at a tick: the fused embedding, the frame it was encoded from, and the world model's belief. */
export interface PolicyInput {
  embedding: Embedding;
  frame: ObservationFrame;
  belief?: Belief | undefined;
}

export interface Policy {
  readonly version: string;
  act(input: PolicyInput): DriveCommand;
}

export interface ReactivePolicyOptions {
  cruiseMps: number;
  maxTurnRadps: number;
  /** Fraction of the scan's range below which the way ahead counts as blocked. */
  blockedFraction: number;
}

const DEFAULTS: ReactivePolicyOptions = { cruiseMps: 0.3, maxTurnRadps: 1.2, blockedFraction: 0.06 };

/** Reads the scan itself, not the embedding: a baseline the operator can reason about. */
export class ReactiveBaselinePolicy implements Policy {
  readonly version = 'reactive-baseline-1';
  private readonly options: ReactivePolicyOptions;

  constructor(options: Partial<ReactivePolicyOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  act({ frame }: PolicyInput): DriveCommand {
    const scan = frame.scan?.received.msg;
    if (!scan) return { linearMps: 0, angularRadps: 0 };
    const sectors = scanSectorMinima(scan.rangesM, scan.angleMinRad, scan.angleIncrementRad, scan.rangeMaxM);
    const sector = (i: number) => sectors[i]! / scan.rangeMaxM;
    const half = SCAN_SECTORS / 2;
    const ahead = Math.min(sector(half - 1), sector(half));
    const left = Math.min(sector(half + 1), sector(half + 2));
    const right = Math.min(sector(half - 2), sector(half - 3));
    const turn = Math.max(-1, Math.min(1, (left - right) * 4)) * this.options.maxTurnRadps;
    if (ahead < this.options.blockedFraction) {
      return { linearMps: 0, angularRadps: turn >= 0 ? this.options.maxTurnRadps : -this.options.maxTurnRadps };
    }
    const slow = Math.min(1, ahead / (this.options.blockedFraction * 4));
    return { linearMps: this.options.cruiseMps * slow, angularRadps: turn * (1 - slow * 0.5) };
  }
}
