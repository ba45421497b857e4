import { describe, expect, it } from 'vitest';
import type { PointCloud2 } from '../core/messages.ts';
import type { SolidBox, SolidPillar } from './arena.ts';
import { createSimLink, SIM_POINT_CLOUD_TOPIC } from './lockstepLink.ts';
import { DEFAULT_RANGE_CLOUD_OPTIONS, RangeCloudSensor, type RangeCloudOptions } from './rangeCloud.ts';
import { SeededRandom } from './random.ts';
import { SimRobot, type SensorOutput, type SensorStream } from './simRobot.ts';

const DEG = Math.PI / 180;

/** x, y, z of every point of a cloud (the sim's layout: 4 float32 per point, little-endian). */
function pointsOf(cloud: PointCloud2): Array<[number, number, number]> {
  const view = new DataView(cloud.data.buffer, cloud.data.byteOffset, cloud.data.byteLength);
  return Array.from({ length: cloud.width * cloud.height }, (_, index) => {
    const at = index * cloud.pointStepBytes;
    return [view.getFloat32(at, true), view.getFloat32(at + 4, true), view.getFloat32(at + 8, true)];
  });
}

/** Distance from a point to the nearest surface of the floor, a box or a pillar (each standing on the floor). */
function distanceToSurfaceM(x: number, y: number, z: number, boxes: readonly SolidBox[], pillars: readonly SolidPillar[]): number {
  let nearestM = Math.abs(z);
  for (const box of boxes) {
    const dx = Math.max(box.minXM - x, 0, x - box.maxXM);
    const dy = Math.max(box.minYM - y, 0, y - box.maxYM);
    const dz = Math.max(-z, 0, z - box.heightM);
    const outsideM = Math.hypot(dx, dy, dz);
    const insideM = Math.min(x - box.minXM, box.maxXM - x, y - box.minYM, box.maxYM - y, z, box.heightM - z);
    nearestM = Math.min(nearestM, outsideM > 0 ? outsideM : insideM);
  }
  for (const pillar of pillars) {
    const radialM = Math.hypot(x - pillar.xM, y - pillar.yM) - pillar.radiusM;
    const aboveM = z - pillar.heightM;
    const outsideM = Math.hypot(Math.max(radialM, 0), Math.max(aboveM, 0, -z));
    nearestM = Math.min(nearestM, outsideM > 0 ? outsideM : Math.min(-radialM, -aboveM));
  }
  return nearestM;
}

function collect(robot: SimRobot, stream: SensorStream, seconds: number): SensorOutput[] {
  const outputs: SensorOutput[] = [];
  robot.step(seconds, { wants: (wanted) => wanted === stream, receive: (output) => outputs.push(output) });
  return outputs;
}

describe('the simulated 3D range sensor', () => {
  it('publishes 16 × 360 beams at 10 Hz in base_link, every point on the floor, a wall or an obstacle within range', () => {
    const robot = new SimRobot({ arenaSeed: 4, episodeSeed: 2 });
    const clouds = collect(robot, 'points', 1).flatMap((output) => (output.stream === 'points' ? [output.msg] : []));
    expect(clouds).toHaveLength(10);
    const cloud = clouds.at(-1)!;
    expect(cloud).toMatchObject({ frameId: 'base_link', height: 1, pointStepBytes: 16, isDense: true, bigEndian: false });
    expect(cloud.fields.map((field) => `${field.name}:${field.datatype}@${field.offsetBytes}`)).toEqual([
      'x:float32@0',
      'y:float32@4',
      'z:float32@8',
      'intensity:float32@12',
    ]);
    expect(cloud.data.byteLength).toBe(cloud.width * 16);
    // In a walled arena most beams return something; the rest rise over the walls.
    expect(cloud.width).toBeGreaterThan(16 * 360 * 0.5);
    expect(cloud.width).toBeLessThanOrEqual(16 * 360);

    const { pose } = robot.groundTruth();
    // The goal pillar is 1 m tall.
    const solids = {
      boxes: [...robot.arena.walls, ...robot.arena.obstacles],
      pillars: [{ ...robot.groundTruth().goal, heightM: 1, colour: [0, 0, 0] as const }],
    };
    const { rangeMinM, rangeMaxM, mountHeightM } = DEFAULT_RANGE_CLOUD_OPTIONS;
    let onObstacleOrWall = 0;
    for (const [x, y, z] of pointsOf(cloud)) {
      const rangeM = Math.hypot(x, y, z - mountHeightM);
      expect(rangeM).toBeGreaterThanOrEqual(rangeMinM);
      expect(rangeM).toBeLessThanOrEqual(rangeMaxM);
      const worldX = pose.xM + x * Math.cos(pose.yawRad) - y * Math.sin(pose.yawRad);
      const worldY = pose.yM + x * Math.sin(pose.yawRad) + y * Math.cos(pose.yawRad);
      // Range noise is 1 cm (σ): 6 cm is six sigma.
      expect(distanceToSurfaceM(worldX, worldY, z, solids.boxes, solids.pillars)).toBeLessThan(0.06);
      if (z > 0.06) onObstacleOrWall++;
    }
    expect(onObstacleOrWall).toBeGreaterThan(cloud.width / 4);
  });

  it('returns one point per beam that hits something, less dropouts: every downward beam, no beam that clears every solid', () => {
    const robot = new SimRobot({ arenaSeed: 4, episodeSeed: 2 });
    const solids = { boxes: [...robot.arena.walls, ...robot.arena.obstacles], pillars: [] };
    const exact: RangeCloudOptions = { ...DEFAULT_RANGE_CLOUD_OPTIONS, rangeNoiseSigmaM: 0, dropoutProbability: 0, layers: 4, beams: 90 };
    const pose = robot.groundTruth().pose;
    // All layers point at the floor within range: every beam comes back.
    const down = new RangeCloudSensor({ ...exact, elevationMinRad: -40 * DEG, elevationMaxRad: -10 * DEG }, solids);
    expect(down.sweep(pose, new SeededRandom(1)).width).toBe(4 * 90);
    // All layers climb steeply from 0.3 m: past every 0.5–0.6 m top before reaching it, so nothing comes back.
    const up = new RangeCloudSensor({ ...exact, elevationMinRad: 70 * DEG, elevationMaxRad: 80 * DEG }, solids);
    expect(up.sweep(pose, new SeededRandom(1)).width).toBe(0);
    // Half the beams dropped: about half the points.
    const lossy = new RangeCloudSensor(
      { ...exact, layers: 16, beams: 360, elevationMinRad: -40 * DEG, elevationMaxRad: -10 * DEG, dropoutProbability: 0.5 },
      solids,
    );
    expect(lossy.sweep(pose, new SeededRandom(1)).width).toBeGreaterThan(16 * 360 * 0.45);
    expect(lossy.sweep(pose, new SeededRandom(2)).width).toBeLessThan(16 * 360 * 0.55);
  });

  it('sees a dropped obstacle, and its points stand where it was dropped', () => {
    const robot = new SimRobot({ arenaSeed: 4, episodeSeed: 2 });
    robot.inject({ kind: 'drop-obstacle', distanceM: 0.6, radiusM: 0.15 });
    const cloud = robot.senseNow('points').msg as PointCloud2;
    // Straight ahead at 0.6 m (centre) − 0.15 m (radius): its near face at about 0.45 m.
    const ahead = pointsOf(cloud).filter(([x, y, z]) => Math.abs(y) < 0.02 && z > 0.05 && x > 0);
    expect(ahead.length).toBeGreaterThan(0);
    expect(Math.min(...ahead.map(([x]) => x))).toBeCloseTo(0.45, 1);
  });

  it('changes no other stream, and is off altogether when disabled', () => {
    const streams: SensorStream[] = ['camera', 'scan', 'joints', 'imu', 'odom'];
    const run = (points: Partial<RangeCloudOptions>, wantPoints: boolean): SensorOutput[] => {
      const robot = new SimRobot({ arenaSeed: 2, episodeSeed: 3, camera: { widthPx: 32, heightPx: 24 }, points });
      robot.drive({ linearMps: 0.3, angularRadps: 0.4 });
      const outputs: SensorOutput[] = [];
      robot.step(0.5, { wants: (stream) => streams.includes(stream) || (wantPoints && stream === 'points'), receive: (output) => outputs.push(output) });
      return outputs;
    };
    const without = run({ enabled: false }, true);
    const withCloud = run({}, true);
    expect(without.some((output) => output.stream === 'points')).toBe(false);
    expect(withCloud.filter((output) => output.stream === 'points')).toHaveLength(5);
    expect(withCloud.filter((output) => output.stream !== 'points')).toEqual(without);
    expect(new SimRobot({ points: { enabled: false } }).hasStream('points')).toBe(false);
  });

  it('refuses a sensor that makes no sense', () => {
    const solids = { boxes: [], pillars: [] };
    expect(() => new RangeCloudSensor({ ...DEFAULT_RANGE_CLOUD_OPTIONS, layers: 0 }, solids)).toThrow(/layers/);
    expect(() => new RangeCloudSensor({ ...DEFAULT_RANGE_CLOUD_OPTIONS, beams: 1.5 }, solids)).toThrow(/beams/);
    expect(() => new RangeCloudSensor({ ...DEFAULT_RANGE_CLOUD_OPTIONS, elevationMinRad: 0.2, elevationMaxRad: 0.1 }, solids)).toThrow(/elevations/);
  });
});

describe('LockstepLink and the point cloud', () => {
  it('offers no point cloud unless asked (benches and learning step it flat out)', () => {
    const link = createSimLink({ epochMs: 0 });
    expect(link.topics().map((topic) => topic.topic)).not.toContain(SIM_POINT_CLOUD_TOPIC);
  });

  it('delivers PointCloud2 on /points when enabled', () => {
    const link = createSimLink({ epochMs: 0, points: { enabled: true, layers: 4, beams: 90, rateHz: 5 } });
    expect(link.topics()).toContainEqual({ topic: SIM_POINT_CLOUD_TOPIC, kind: 'PointCloud2' });
    const clouds: PointCloud2[] = [];
    link.subscribe<PointCloud2>(SIM_POINT_CLOUD_TOPIC, (received) => clouds.push(received.msg));
    link.advance(1);
    expect(clouds).toHaveLength(5);
    expect(clouds[0]!.width).toBeGreaterThan(0);
    expect(clouds[0]!.width).toBeLessThanOrEqual(4 * 90);
  });
});
