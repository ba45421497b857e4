import type { ObservationFrame } from '../core/frame.ts';
import { describe, expect, it } from 'vitest';
import type { LaserScan } from '../core/messages.ts';
import type { Embedding } from '../core/perception.ts';
import { ReactiveBaselinePolicy } from './reactiveBaselinePolicy.ts';

const embedding: Embedding = { values: new Float32Array(4), mask: { camera: false, lidar: false, proprio: false } };

/** 360 beams from −π, one per degree; `rangeAt` gives the range at a bearing (0 ahead, positive to the left). */
function frameWithScan(rangeAt: (bearingRad: number) => number): ObservationFrame {
  const angleIncrementRad = (2 * Math.PI) / 360;
  const rangesM = Float32Array.from({ length: 360 }, (_, i) => rangeAt(-Math.PI + i * angleIncrementRad));
  const scan: LaserScan = {
    kind: 'LaserScan',
    frameId: 'laser',
    angleMinRad: -Math.PI,
    angleMaxRad: Math.PI,
    angleIncrementRad,
    rangeMinM: 0.05,
    rangeMaxM: 8,
    rangesM,
  };
  return {
    timeMs: 0,
    missing: ['camera', 'joints', 'imu', 'odom'],
    scan: { received: { topic: '/scan', receiveTimeMs: 0, sourceTimeMs: 0, msg: scan }, ageMs: 0 },
  };
}

describe('ReactiveBaselinePolicy', () => {
  const policy = new ReactiveBaselinePolicy();

  it('stops when the scan is missing', () => {
    expect(policy.act({ embedding, frame: { timeMs: 0, missing: ['scan'] } })).toEqual({ linearMps: 0, angularRadps: 0 });
  });

  it('cruises straight on through open space', () => {
    expect(policy.act({ embedding, frame: frameWithScan(() => Infinity) })).toEqual({ linearMps: 0.3, angularRadps: 0 });
  });

  it('turns in place toward the open side when something is close ahead', () => {
    const blockedAhead = (openSide: 1 | -1) => frameWithScan((bearing) => (Math.abs(bearing) < 0.3 ? 0.2 : Math.sign(bearing) === openSide ? 8 : 1));
    expect(policy.act({ embedding, frame: blockedAhead(1) })).toEqual({ linearMps: 0, angularRadps: 1.2 });
    expect(policy.act({ embedding, frame: blockedAhead(-1) })).toEqual({ linearMps: 0, angularRadps: -1.2 });
  });

  it('slows near an obstacle ahead and steers away from the nearer side', () => {
    const command = policy.act({ embedding, frame: frameWithScan((bearing) => (Math.abs(bearing) < 0.3 ? 1.2 : bearing > 0 ? 0.8 : 3)) });
    expect(command.linearMps).toBeGreaterThan(0);
    expect(command.linearMps).toBeLessThan(0.3);
    expect(command.angularRadps).toBeLessThan(0);
  });

  it('skips beams with no reading', () => {
    expect(policy.act({ embedding, frame: frameWithScan((bearing) => (Math.abs(bearing) < 0.3 ? Number.NaN : Infinity)) })).toEqual({
      linearMps: 0.3,
      angularRadps: 0,
    });
  });
});
