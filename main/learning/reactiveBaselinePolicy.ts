// The reactive baseline: the policy that drives before anything is learned, a transparent baseline: cruise forward, steer toward open space, stop when
// the scan is missing or something is close ahead.
import type { DriveCommand } from '../core/messages.ts';
import type { Policy, PolicyInput } from '../core/policy.ts';
import { scanSectorMinima, SCAN_SECTORS } from './scanSectors.ts';

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
