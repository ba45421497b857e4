import { describe, expect, it } from 'vitest';
import { dockFromWorld, worldFromDock } from './dockApproach.ts';

const DEGREE = Math.PI / 180;

describe("the dock's frame", () => {
  it('measures out in front of the dock pose, across to its left, and the heading against it', () => {
    // The dock pose faces +x (a wall beyond x = 1): 0.3 m back and 0.1 m to the left, turned 5° left.
    const dock = { xM: 1, yM: 0, yawRad: 0 };
    const inDock = dockFromWorld(dock, { xM: 0.7, yM: 0.1, yawRad: 5 * DEGREE });
    expect(inDock.outM).toBeCloseTo(0.3, 12);
    expect(inDock.leftM).toBeCloseTo(0.1, 12);
    expect(inDock.headingErrorRad).toBeCloseTo(5 * DEGREE, 12);

    // The same, the dock facing −y: in front of it is +y, its left is +x.
    const facingDown = { xM: 0, yM: -2, yawRad: -Math.PI / 2 };
    const turned = dockFromWorld(facingDown, { xM: 0.1, yM: -1.7, yawRad: -Math.PI / 2 + 5 * DEGREE });
    expect(turned.outM).toBeCloseTo(0.3, 12);
    expect(turned.leftM).toBeCloseTo(0.1, 12);
    expect(turned.headingErrorRad).toBeCloseTo(5 * DEGREE, 12);
  });

  it('wraps the heading error across ±π, and is undone by worldFromDock', () => {
    const dock = { xM: -1.2, yM: 2.1, yawRad: 3.1 };
    const pose = { xM: -0.9, yM: 1.8, yawRad: -3.1 };
    const inDock = dockFromWorld(dock, pose);
    expect(inDock.headingErrorRad).toBeCloseTo(2 * Math.PI - 6.2, 12);
    const back = worldFromDock(dock, inDock);
    expect(back.xM).toBeCloseTo(pose.xM, 12);
    expect(back.yM).toBeCloseTo(pose.yM, 12);
    expect(back.yawRad).toBeCloseTo(pose.yawRad, 12);
    const atDock = dockFromWorld(dock, dock);
    expect([atDock.outM, atDock.leftM, atDock.headingErrorRad].map(Math.abs)).toEqual([0, 0, 0]);
  });
});
