// The policy proposes an action each tick. Until a learned policy exists (the learning issue), the
// default is a transparent reactive baseline: cruise forward, steer toward open space, stop when
// the scan is missing or something is close ahead.
import type { DriveCommand } from '../links/messages.ts';
import { FEATURE_LAYOUT, SCAN_SECTORS, type Embedding } from '../perception/perception.ts';

export interface Policy {
  readonly version: string;
  act(embedding: Embedding): DriveCommand;
}

export interface ReactivePolicyOptions {
  cruiseMps: number;
  maxTurnRadps: number;
  /** Fraction of the scan's range below which the way ahead counts as blocked. */
  blockedFraction: number;
}

const DEFAULTS: ReactivePolicyOptions = { cruiseMps: 0.3, maxTurnRadps: 1.2, blockedFraction: 0.06 };

export class ReactiveBaselinePolicy implements Policy {
  readonly version = 'reactive-baseline-1';
  private readonly options: ReactivePolicyOptions;

  constructor(options: Partial<ReactivePolicyOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  act(embedding: Embedding): DriveCommand {
    if (!embedding.mask.scan) return { linearMps: 0, angularRadps: 0 };
    const sector = (i: number) => embedding.values[FEATURE_LAYOUT.scan.offset + i]!;
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
