// Counts an operator's takeovers and those a collision followed: the robot hit something while the
// operator held control, or soon after it handed back. A takeover that comes too late, or ends too
// early, shows up here; benches report the two counts side by side.
import type { GroundTruth } from '../simRobot.ts';
import type { TakeoverCounts } from './simOperator.ts';

/** A collision this soon after the hand-back still counts against the takeover: it did not clear the danger. */
export const COLLISION_AFTER_HAND_BACK_SECS = 2;

interface OpenTakeover {
  collisionsAtStart: number;
  handedBackSecs: number | undefined;
  collided: boolean;
}

export class TakeoverTally {
  private readonly counts: TakeoverCounts = { takeovers: 0, followedByCollision: 0 };
  private open: OpenTakeover | undefined;
  private lastDriver: 'policy' | 'operator' = 'policy';

  /** Once per supervised tick: the current (not the operator's delayed) truth, and who drives from now. */
  observe(truth: GroundTruth, driver: 'policy' | 'operator'): void {
    // The truth shows what the last tick's driver did, so a collision in it belongs to the takeover still open.
    const open = this.open;
    if (open !== undefined) {
      const inWindow = open.handedBackSecs === undefined || truth.simTimeSecs - open.handedBackSecs <= COLLISION_AFTER_HAND_BACK_SECS + 1e-9;
      if (inWindow && !open.collided && truth.collisionCount > open.collisionsAtStart) {
        open.collided = true;
        this.counts.followedByCollision++;
      }
      if (!inWindow) this.open = undefined;
    }
    if (driver === 'operator' && this.lastDriver === 'policy') {
      this.counts.takeovers++;
      this.open = { collisionsAtStart: truth.collisionCount, handedBackSecs: undefined, collided: false };
    } else if (driver === 'policy' && this.lastDriver === 'operator' && this.open !== undefined) {
      this.open.handedBackSecs = truth.simTimeSecs;
    }
    this.lastDriver = driver;
  }

  snapshot(): TakeoverCounts {
    return { ...this.counts };
  }
}
