import { describe, expect, it } from 'vitest';
import { TfTree, type StampedTransform, type TfLookupResult } from './tfTree.ts';
import type { Quaternion, Vector3 } from './messages.ts';
import type { RigidTransform } from './util/rigidTransform.ts';

const S = Math.SQRT1_2;
const IDENTITY_Q: Quaternion = { x: 0, y: 0, z: 0, w: 1 };
const YAW_90: Quaternion = { x: 0, y: 0, z: S, w: S };
const ROLL_180: Quaternion = { x: 1, y: 0, z: 0, w: 0 };

function yaw(rad: number): Quaternion {
  return { x: 0, y: 0, z: Math.sin(rad / 2), w: Math.cos(rad / 2) };
}

function tf(parent: string, child: string, translation: [number, number, number], rotation: Quaternion = IDENTITY_Q, stampMs = 0): StampedTransform {
  const [x, y, z] = translation;
  return { parent, child, stampMs, transform: { translation: { x, y, z }, rotation } };
}

function treeAt(startMs = 0): { tree: TfTree; clock: { nowMs: number } } {
  const clock = { nowMs: startMs };
  return { tree: new TfTree({ nowMs: () => clock.nowMs }), clock };
}

function transformOf(result: TfLookupResult): RigidTransform {
  if (!result.ok) throw new Error(`lookup failed: ${result.problem}`);
  return result.targetFromSource;
}

/** Within 1e-9, the quaternion up to sign (q and -q are one rotation). */
function expectTransform(actual: RigidTransform, translation: [number, number, number], rotation: Quaternion): void {
  const t: Vector3 = actual.translation;
  expect(Math.abs(t.x - translation[0])).toBeLessThan(1e-9);
  expect(Math.abs(t.y - translation[1])).toBeLessThan(1e-9);
  expect(Math.abs(t.z - translation[2])).toBeLessThan(1e-9);
  const q = actual.rotation;
  const sign = q.x * rotation.x + q.y * rotation.y + q.z * rotation.z + q.w * rotation.w < 0 ? -1 : 1;
  for (const key of ['x', 'y', 'z', 'w'] as const) expect(Math.abs(sign * q[key] - rotation[key])).toBeLessThan(1e-9);
}

describe('composing through the tree', () => {
  // map → odom: (1, 2, 0), yaw 90°; odom → base_link: (3, 1, 0), yaw 90°; base_link → laser: (0.2, 0, 0.3), mounted upside down (roll 180°).
  // By hand: map ← base_link is (1, 2, 0) + Rz90·(3, 1, 0) = (0, 5, 0), yaw 180°;
  // map ← laser is (0, 5, 0) + Rz180·(0.2, 0, 0.3) = (-0.2, 5, 0.3), Rz180·Rx180 = Ry180 = (0, 1, 0, 0).
  function robotTree(): TfTree {
    const { tree } = treeAt(1000);
    expect(tree.add(tf('map', 'odom', [1, 2, 0], YAW_90, 1000), false)).toEqual({ ok: true });
    expect(tree.add(tf('odom', 'base_link', [3, 1, 0], YAW_90, 1000), false)).toEqual({ ok: true });
    expect(tree.add(tf('base_link', 'laser', [0.2, 0, 0.3], ROLL_180), true)).toEqual({ ok: true });
    expect(tree.add(tf('base_link', 'camera', [0.1, 0, 0.5]), true)).toEqual({ ok: true });
    return tree;
  }

  it('places the laser in the map through odom and base_link, as computed by hand', () => {
    const tree = robotTree();
    expectTransform(transformOf(tree.lookup('map', 'base_link')), [0, 5, 0], { x: 0, y: 0, z: 1, w: 0 });
    expectTransform(transformOf(tree.lookup('map', 'laser')), [-0.2, 5, 0.3], { x: 0, y: 1, z: 0, w: 0 });
  });

  it('names the root a frame hangs from', () => {
    const tree = robotTree();
    expect(tree.rootOf('/laser')).toBe('map');
    expect(tree.rootOf('map')).toBe('map');
    expect(tree.rootOf('elsewhere')).toBeUndefined();
  });

  it('gives the inverse the other way round', () => {
    // laser ← map: Ry180ᵀ = Ry180, and −Ry180·(−0.2, 5, 0.3) = (−0.2, −5, 0.3).
    expectTransform(transformOf(robotTree().lookup('laser', 'map')), [-0.2, -5, 0.3], { x: 0, y: 1, z: 0, w: 0 });
  });

  it('goes up and down through a common parent', () => {
    // laser ← camera = (base_link ← laser)⁻¹ · (base_link ← camera): Rx180·(0.1, 0, 0.5) + (−0.2, 0, 0.3) = (−0.1, 0, −0.2).
    expectTransform(transformOf(robotTree().lookup('laser', 'camera')), [-0.1, 0, -0.2], ROLL_180);
  });

  it('gives the identity from a frame to itself, and drops one leading slash as tf2 does', () => {
    const tree = robotTree();
    expectTransform(transformOf(tree.lookup('odom', 'odom')), [0, 0, 0], IDENTITY_Q);
    expect(tree.add(tf('/laser', '/scan_mount', [1, 0, 0]), true)).toEqual({ ok: true });
    expect(tree.has('scan_mount')).toBe(true);
    expectTransform(transformOf(tree.lookup('/laser', 'scan_mount')), [1, 0, 0], IDENTITY_Q);
  });

  it('normalises a quaternion that is nearly unit', () => {
    const { tree } = treeAt();
    expect(tree.add(tf('a', 'b', [0, 0, 0], { x: 0, y: 0, z: 0, w: 1.004 }), true)).toEqual({ ok: true });
    expect(transformOf(tree.lookup('a', 'b')).rotation.w).toBe(1);
  });

  it('lists every frame with its parent, roots included', () => {
    const frames = robotTree().frames();
    expect(frames.map((frame) => [frame.frame, frame.parent, frame.static])).toEqual([
      ['odom', 'map', false],
      ['base_link', 'odom', false],
      ['laser', 'base_link', true],
      ['camera', 'base_link', true],
      ['map', undefined, false],
    ]);
  });
});

describe('bad input is refused, and the tree stays as it was', () => {
  it('refuses a NaN or an infinity, naming the frames', () => {
    const { tree } = treeAt();
    tree.add(tf('odom', 'base_link', [1, 0, 0]), true);
    const nan = tree.add(tf('odom', 'base_link', [Number.NaN, 0, 0]), true);
    expect(nan).toEqual({ ok: false, problem: 'the transform odom → base_link has a NaN in translation.x and was refused' });
    const infinite = tree.add(tf('odom', 'base_link', [0, 0, 0], { x: 0, y: 0, z: Infinity, w: 1 }), true);
    expect(infinite.ok).toBe(false);
    // One problem per link and kind, in the latest words: a publisher sending NaN at 50 Hz is one line.
    expect(tree.problems()).toEqual(['the transform odom → base_link has an infinity in rotation.z and was refused']);
    expectTransform(transformOf(tree.lookup('odom', 'base_link')), [1, 0, 0], IDENTITY_Q);
  });

  it('refuses a zero quaternion and one far from unit length', () => {
    const { tree } = treeAt();
    const zero = tree.add(tf('base_link', 'laser', [0, 0, 0], { x: 0, y: 0, z: 0, w: 0 }), true);
    expect(zero).toEqual({ ok: false, problem: 'the transform base_link → laser has a rotation that is not a unit quaternion (length 0.00) and was refused' });
    expect(tree.add(tf('base_link', 'laser', [0, 0, 0], { x: 0, y: 0, z: 0, w: 2 }), true).ok).toBe(false);
    expect(tree.has('laser')).toBe(false);
  });

  it('refuses a transform that would close a cycle, and keeps composing the rest', () => {
    const { tree } = treeAt();
    tree.add(tf('map', 'odom', [1, 0, 0]), true);
    tree.add(tf('odom', 'base_link', [1, 0, 0]), true);
    const cycle = tree.add(tf('base_link', 'map', [0, 0, 0]), true);
    expect(cycle).toEqual({ ok: false, problem: 'the transform base_link → map would close a cycle (map → odom → base_link already) and was refused' });
    expect(tree.add(tf('laser', 'laser', [0, 0, 0]), true).ok).toBe(false);
    expect(tree.add(tf('', 'laser', [0, 0, 0]), true)).toEqual({ ok: false, problem: 'a transform with an empty frame id ("" → laser) was refused' });
    expectTransform(transformOf(tree.lookup('map', 'base_link')), [2, 0, 0], IDENTITY_Q);
    expect(tree.problems()).toHaveLength(3);
  });

  it('forgets a problem some seconds after it last happened', () => {
    const { tree, clock } = treeAt();
    tree.add(tf('a', 'b', [Number.NaN, 0, 0]), true);
    clock.nowMs += 9_000;
    expect(tree.problems()).toHaveLength(1);
    clock.nowMs += 2_000;
    expect(tree.problems()).toEqual([]);
  });

  it('says which frame is missing and which frames the tree has', () => {
    const { tree } = treeAt();
    expect(tree.lookup('map', 'base_link')).toEqual({ ok: false, failure: 'unknown-frame', problem: 'no frame map: the TF tree is empty' });
    tree.add(tf('odom', 'base_link', [0, 0, 0]), true);
    expect(tree.lookup('map', 'base_link')).toEqual({
      ok: false,
      failure: 'unknown-frame',
      problem: 'no frame map in the TF tree; it has base_link, odom',
    });
  });

  it('says when two frames are in separate trees', () => {
    const { tree } = treeAt();
    tree.add(tf('odom', 'base_link', [0, 0, 0]), true);
    tree.add(tf('map', 'marker', [0, 0, 0]), true);
    expect(tree.lookup('map', 'base_link')).toEqual({
      ok: false,
      failure: 'not-connected',
      problem: 'base_link and map are in separate TF trees (base_link hangs below odom, map is a root)',
    });
  });

  it('takes the newest parent of a frame given two, and says so', () => {
    const { tree } = treeAt();
    tree.add(tf('odom', 'base_link', [1, 0, 0]), true);
    tree.add(tf('map', 'base_link', [2, 0, 0]), true);
    expectTransform(transformOf(tree.lookup('map', 'base_link')), [2, 0, 0], IDENTITY_Q);
    const frame = tree.frames().find((one) => one.frame === 'base_link');
    expect(frame?.parent).toBe('map');
    expect(frame?.problem).toBe('base_link has two parents, odom and map (two publishers disagree): the newest, map, is used');
  });

  it('holds at most its frame limit', () => {
    const clock = { nowMs: 0 };
    const tree = new TfTree({ nowMs: () => clock.nowMs, maxFrames: 2 });
    expect(tree.add(tf('a', 'b', [0, 0, 0]), true).ok).toBe(true);
    expect(tree.add(tf('b', 'c', [0, 0, 0]), true).ok).toBe(true);
    expect(tree.add(tf('c', 'd', [0, 0, 0]), true)).toEqual({ ok: false, problem: 'the TF tree holds 2 frames, its limit: the transform c → d was refused' });
  });
});

describe('time', () => {
  /** odom → base_link at 10 Hz for a second, x growing 0.1 m a transform; the clock at the last. */
  function drivingTree(): { tree: TfTree; clock: { nowMs: number } } {
    const { tree, clock } = treeAt();
    for (let step = 0; step <= 10; step++) {
      clock.nowMs = 1000 + step * 100;
      tree.add(tf('odom', 'base_link', [step * 0.1, 0, 0], IDENTITY_Q, clock.nowMs), false);
    }
    tree.add(tf('base_link', 'laser', [0.2, 0, 0]), true);
    return { tree, clock };
  }

  it('gives each dynamic frame its age and rate', () => {
    const { tree, clock } = drivingTree();
    clock.nowMs += 250;
    const base = tree.frames().find((frame) => frame.frame === 'base_link')!;
    expect(base.ageMs).toBe(250);
    expect(base.rateHz).toBeCloseTo(10, 9);
    const laser = tree.frames().find((frame) => frame.frame === 'laser')!;
    expect(laser).toMatchObject({ static: true, ageMs: undefined, rateHz: undefined });
  });

  it('places a frame at its newest transform while it is fresh, and not at all once it is stale', () => {
    const { tree, clock } = drivingTree();
    // Due every 100 ms: stale beyond 100 + 500 ms.
    clock.nowMs += 550;
    expectTransform(transformOf(tree.lookup('odom', 'laser')), [1.2, 0, 0], IDENTITY_Q);
    clock.nowMs += 1750;
    expect(tree.lookup('odom', 'laser')).toEqual({ ok: false, failure: 'stale', problem: 'odom → base_link is 2.3 s old' });
    // Static links never go stale; only the chains through the silent one are refused.
    expectTransform(transformOf(tree.lookup('base_link', 'laser')), [0.2, 0, 0], IDENTITY_Q);
  });

  it('interpolates between transforms: linear in translation, along the arc in rotation', () => {
    const { tree } = treeAt(2000);
    tree.add(tf('odom', 'base_link', [0, 0, 0], yaw(0), 1000), false);
    tree.add(tf('odom', 'base_link', [1, 2, 0], yaw(Math.PI / 2), 2000), false);
    expectTransform(transformOf(tree.lookup('odom', 'base_link', 1500)), [0.5, 1, 0], yaw(Math.PI / 4));
    expectTransform(transformOf(tree.lookup('odom', 'base_link', 1250)), [0.25, 0.5, 0], yaw(Math.PI / 8));
    expectTransform(transformOf(tree.lookup('odom', 'base_link', 2000)), [1, 2, 0], yaw(Math.PI / 2));
  });

  it('takes the short way round between q and a nearly opposite −q', () => {
    const { tree } = treeAt(2000);
    const almostHalfTurn = yaw(Math.PI - 0.2);
    const negatedOtherSide = yaw(-(Math.PI - 0.2));
    tree.add(tf('odom', 'base_link', [0, 0, 0], almostHalfTurn, 1000), false);
    tree.add(tf('odom', 'base_link', [0, 0, 0], negatedOtherSide, 2000), false);
    // Halfway along the 0.4 rad between them is the half turn, not yaw 0 the long way round.
    expectTransform(transformOf(tree.lookup('odom', 'base_link', 1500)), [0, 0, 0], yaw(Math.PI));
  });

  it('refuses to extrapolate beyond what it keeps', () => {
    const { tree } = treeAt(2000);
    tree.add(tf('odom', 'base_link', [0, 0, 0], IDENTITY_Q, 1000), false);
    tree.add(tf('odom', 'base_link', [1, 0, 0], IDENTITY_Q, 2000), false);
    expect(tree.lookup('odom', 'base_link', 2100)).toEqual({
      ok: false,
      failure: 'extrapolation',
      problem: 'odom → base_link is asked 0.100 s after its newest transform',
    });
    expect(tree.lookup('odom', 'base_link', 900)).toMatchObject({ ok: false, failure: 'extrapolation' });
  });

  it('files a late transform in its place', () => {
    const { tree } = treeAt(3000);
    tree.add(tf('odom', 'base_link', [2, 0, 0], IDENTITY_Q, 2000), false);
    tree.add(tf('odom', 'base_link', [0, 0, 0], IDENTITY_Q, 1000), false);
    expectTransform(transformOf(tree.lookup('odom', 'base_link', 1500)), [1, 0, 0], IDENTITY_Q);
  });

  it('keeps a bounded history: ten seconds, at most its count per frame', () => {
    const { tree, clock } = treeAt();
    for (let ms = 0; ms <= 2000; ms += 1) {
      clock.nowMs = ms;
      tree.add(tf('odom', 'base_link', [ms / 1000, 0, 0], IDENTITY_Q, ms), false);
    }
    // 1 kHz: the last 500 transforms, half a second.
    expect(tree.lookup('odom', 'base_link', 1600).ok).toBe(true);
    expect(tree.lookup('odom', 'base_link', 1400)).toMatchObject({ ok: false, failure: 'extrapolation' });
    const late = tree.add(tf('odom', 'base_link', [0, 0, 0], IDENTITY_Q, -9000), false);
    expect(late).toEqual({ ok: false, problem: 'a transform odom → base_link stamped 11.0 s before its newest was dropped (10 s are kept)' });
  });

  it('drops the dynamic transforms on request and keeps the static ones', () => {
    const { tree } = drivingTree();
    tree.clearDynamic();
    expect(tree.frameNames().sort()).toEqual(['base_link', 'laser']);
    expectTransform(transformOf(tree.lookup('base_link', 'laser')), [0.2, 0, 0], IDENTITY_Q);
  });
});
