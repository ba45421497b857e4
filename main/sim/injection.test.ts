import { describe, it, expect } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import { twistFromDrive, type Image, type Imu, type LaserScan, type Received } from '../core/messages.ts';
import { DROPPED_OBSTACLE_COLOUR, GOAL_COLOUR } from './arena.ts';
import { checkInjection, type SimInjection } from './injection.ts';
import { createSimLink, type LockstepLink } from './lockstepLink.ts';

/** The robot at the centre of an empty 10 m arena facing east, goal far away in the north-east. */
function openArena(): { link: LockstepLink; received: Received[] } {
  const link = createSimLink({
    arenaSeed: 7,
    episodeSeed: 7,
    arena: { sizeM: 10, obstacleCount: 0 },
    camera: { widthPx: 64, heightPx: 48 },
    autoReset: false,
    epochMs: 0,
  });
  link.robot.startEpisode({ startPose: { xM: 0, yM: 0, yawRad: 0 }, goal: { xM: 4, yM: 4, radiusM: 0.15, heightM: 1, colour: GOAL_COLOUR } });
  const received: Received[] = [];
  for (const { topic } of link.topics()) link.subscribe(topic, (message) => received.push(message));
  return { link, received };
}

function on<M extends Received['msg']>(received: readonly Received[], topic: string, fromMs = -Infinity, toMs = Infinity): Array<Received<M>> {
  // Safe: each topic carries one message kind, and the caller names the one it asked for.
  return received.filter((message) => message.topic === topic && message.sourceTimeMs > fromMs && message.sourceTimeMs <= toMs) as Array<Received<M>>;
}

function hold(link: LockstepLink, linearMps: number, angularRadps: number, durationSecs: number): void {
  for (let elapsedSecs = 0; elapsedSecs < durationSecs - 1e-9; elapsedSecs += 0.1) {
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps, angularRadps }));
    link.advance(0.1);
  }
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

function meanAbsoluteDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

function isDroppedColour(image: Image, column: number, row: number): boolean {
  const offset = row * image.step + column * 3;
  const [red, green, blue] = [image.data[offset] ?? 0, image.data[offset + 1] ?? 0, image.data[offset + 2] ?? 0];
  const [wantRed, wantGreen, wantBlue] = DROPPED_OBSTACLE_COLOUR;
  // Distance shading darkens every channel alike, so compare the channels' proportions.
  return red > 100 && Math.abs(green / red - wantGreen / wantRed) < 0.12 && Math.abs(blue / red - wantBlue / wantRed) < 0.12;
}

describe('injected events', () => {
  it('shove: the body is kicked sideways, slides, and the IMU feels it', () => {
    const { link, received } = openArena();
    link.advance(0.2);
    link.inject({ kind: 'shove', forwardMps: 0, leftwardMps: 1.5 });
    link.advance(0.5);
    const pose = link.robot.groundTruth().pose;
    expect(pose.yM).toBeGreaterThan(0.1);
    expect(Math.abs(pose.xM)).toBeLessThan(1e-3);
    const kick = on<Imu>(received, DEFAULT_TOPIC_MAP.imu, 200, 250).map((message) => Math.abs(message.msg.linearAccelerationMps2.y));
    expect(Math.max(...kick)).toBeGreaterThan(5);
  });

  it('drop-obstacle: a cylinder appears ahead, in the LiDAR and the camera, and stops the robot', () => {
    const { link, received } = openArena();
    link.inject({ kind: 'drop-obstacle', distanceM: 1.2, radiusM: 0.2 });
    link.advance(0.2);
    const truth = link.robot.groundTruth();
    expect(truth.droppedObstacles).toEqual([{ xM: expect.closeTo(1.2, 6), yM: expect.closeTo(0, 6), radiusM: 0.2 }]);
    expect(truth.nearestObstacleM).toBeCloseTo(1.2 - 0.2 - 0.175, 3);
    const scan = on<LaserScan>(received, DEFAULT_TOPIC_MAP.scan).at(-1);
    expect(scan?.msg.rangesM[180], 'the beam straight ahead').toBeCloseTo(1.0, 1);
    const frame = on<Image>(received, DEFAULT_TOPIC_MAP.camera).at(-1)?.msg;
    if (frame === undefined) throw new Error('no camera frame');
    expect(isDroppedColour(frame, frame.width / 2, frame.height / 2 + 5), 'the image centre shows the orange obstacle').toBe(true);

    hold(link, 0.4, 0, 4);
    const after = link.robot.groundTruth();
    expect(after.pose.xM).toBeCloseTo(1.2 - 0.2 - 0.175, 2);
    expect(after.collisionCount).toBe(1);
    expect(link.robot.episodeState()).toMatchObject({ status: 'failed', reason: 'collision' });
  });

  it('drop-obstacle: refuses one that would land on the robot', () => {
    const { link } = openArena();
    expect(() => link.inject({ kind: 'drop-obstacle', distanceM: 0.3, radiusM: 0.2 })).toThrow(/overlap the robot/);
    expect(link.robot.groundTruth().droppedObstacles).toEqual([]);
  });

  it('freeze-camera: the last frame is republished unchanged at the camera rate, then live frames return', () => {
    const { link, received } = openArena();
    link.advance(0.5);
    link.inject({ kind: 'freeze-camera', durationMs: 600 });
    hold(link, 0, 1.5, 1.2);
    const frames = on<Image>(received, DEFAULT_TOPIC_MAP.camera);
    const lastLive = on<Image>(received, DEFAULT_TOPIC_MAP.camera, 0, 500).at(-1);
    const frozen = on<Image>(received, DEFAULT_TOPIC_MAP.camera, 500, 1100);
    expect(frozen).toHaveLength(9);
    for (const frame of frozen) expect(sameBytes(frame.msg.data, lastLive?.msg.data)).toBe(true);
    const live = on<Image>(received, DEFAULT_TOPIC_MAP.camera, 1100);
    expect(live.length).toBeGreaterThan(0);
    expect(sameBytes(live[0]?.msg.data, lastLive?.msg.data)).toBe(false);
    expect(frames).toHaveLength(Math.floor(1.7 * 15));
  });

  it('freeze-camera with fresh noise: the frozen view is drawn again, new pixel noise each frame, while the robot turns', () => {
    const { link, received } = openArena();
    link.advance(0.5);
    link.inject({ kind: 'freeze-camera', durationMs: 600, freshNoise: true });
    hold(link, 0, 1.5, 1.2);
    const lastLive = on<Image>(received, DEFAULT_TOPIC_MAP.camera, 0, 500).at(-1)!;
    const frozen = on<Image>(received, DEFAULT_TOPIC_MAP.camera, 500, 1100);
    expect(frozen).toHaveLength(9);
    // Never a repeat, but the same view: each pixel within the noise of the last live frame's.
    for (const [index, frame] of frozen.entries()) {
      expect(sameBytes(frame.msg.data, lastLive.msg.data)).toBe(false);
      if (index > 0) expect(sameBytes(frame.msg.data, frozen[index - 1]!.msg.data)).toBe(false);
      expect(meanAbsoluteDifference(frame.msg.data, lastLive.msg.data)).toBeLessThan(4);
    }
    // The robot turned meanwhile: the first live frame after shows another view.
    const live = on<Image>(received, DEFAULT_TOPIC_MAP.camera, 1100)[0]!;
    expect(meanAbsoluteDifference(live.msg.data, lastLive.msg.data)).toBeGreaterThan(8);
  });

  it('freeze-camera: refuses a freshNoise that is not true or false', () => {
    const { link } = openArena();
    expect(() => link.inject({ kind: 'freeze-camera', durationMs: 100, freshNoise: 'yes' as unknown as boolean })).toThrow(/freshNoise must be true or false/);
  });

  it('blackout-lidar: every beam reads NaN for the duration, then ranges return', () => {
    const { link, received } = openArena();
    link.inject({ kind: 'blackout-lidar', durationMs: 300 });
    link.advance(0.6);
    const scans = on<LaserScan>(received, DEFAULT_TOPIC_MAP.scan);
    expect(scans).toHaveLength(6);
    for (const scan of scans.slice(0, 3)) expect(scan.msg.rangesM.every(Number.isNaN)).toBe(true);
    for (const scan of scans.slice(3)) expect(scan.msg.rangesM.filter(Number.isFinite).length).toBeGreaterThan(300);
  });

  it('flood: one stream publishes at the flood rate for the duration, evenly stamped; the others keep theirs', () => {
    const { link, received } = openArena();
    link.advance(0.1);
    link.inject({ kind: 'flood', stream: 'imu', rateHz: 1000, durationMs: 200 });
    link.inject({ kind: 'flood', stream: 'camera', rateHz: 60, durationMs: 500 });
    link.advance(1);
    // Half a millisecond of slack on each side: stamps are sums of floats.
    const flooded = on<Imu>(received, DEFAULT_TOPIC_MAP.imu, 100.5, 300.5);
    expect(flooded).toHaveLength(200);
    flooded.slice(1).forEach((message, index) => expect(message.sourceTimeMs - (flooded[index]?.sourceTimeMs ?? 0)).toBeCloseTo(1, 6));
    expect(on(received, DEFAULT_TOPIC_MAP.imu, 300.5, 1100.5)).toHaveLength(80);
    expect(on(received, DEFAULT_TOPIC_MAP.camera, 100.5, 600.5)).toHaveLength(30);
    expect(on(received, DEFAULT_TOPIC_MAP.scan, 100, 1100)).toHaveLength(10);
  });

  it('stall: nothing at all is published for the duration, the robot keeps moving, then every stream resumes', () => {
    const { link, received } = openArena();
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps: 0.3, angularRadps: 0 }));
    link.advance(0.1);
    link.inject({ kind: 'stall', durationMs: 400 });
    link.advance(0.4);
    expect(on(received, '/imu', 100)).toHaveLength(0);
    expect(received.filter((message) => message.sourceTimeMs > 100)).toHaveLength(0);
    expect(link.robot.groundTruth().pose.xM).toBeGreaterThan(0.1);
    link.advance(0.5);
    for (const { topic } of link.topics()) expect(on(received, topic, 500).length, topic).toBeGreaterThan(0);
    expect(on(received, DEFAULT_TOPIC_MAP.imu, 500)).toHaveLength(50);
  });

  it('rejects injections that make no sense, naming the field', () => {
    const bad: SimInjection[] = [
      { kind: 'stall', durationMs: -1 },
      { kind: 'freeze-camera', durationMs: Number.NaN },
      { kind: 'shove', forwardMps: 50, leftwardMps: 0 },
      { kind: 'flood', stream: 'imu', rateHz: 1e6, durationMs: 100 },
      { kind: 'drop-obstacle', distanceM: 1, radiusM: 0 },
    ];
    for (const injection of bad) expect(() => checkInjection(injection), injection.kind).toThrow(RangeError);
    // Only reachable from untyped input, such as a service call.
    const unknownStream = JSON.parse('{"kind":"flood","stream":"sonar","rateHz":100,"durationMs":100}') as SimInjection;
    expect(() => checkInjection(unknownStream)).toThrow(/unknown stream "sonar"/);
    expect(() => checkInjection(JSON.parse('{"kind":"teleport"}') as SimInjection)).toThrow(/unknown injection kind "teleport"/);
  });
});
