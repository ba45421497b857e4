// nav_msgs/Path and visualization_msgs/Marker(Array) read from RosFields as the links deliver them
// (ROS 1 JSON with `null` for a NaN, ROS 2 durations): every Marker type the view draws, the actions,
// and a clear problem naming the marker for each one that cannot be drawn.
import { describe, expect, it } from 'vitest';
import { MAX_MARKER_POINTS, MAX_PATH_POSES, markerKey, readMarkers, readPath } from './markerMessages.ts';

interface MarkerGiven {
  ns?: string;
  id?: number;
  type?: number;
  action?: number;
  frame?: string;
  position?: [number | null, number, number];
  orientation?: [number, number, number, number];
  scale?: [number | null, number, number];
  colour?: [number, number, number, number];
  points?: Array<[number | null, number, number]>;
  colours?: Array<[number, number, number, number]>;
  text?: string;
  lifetime?: Record<string, number>;
  frameLocked?: boolean;
}

/** A Marker as rosbridge gives it from a ROS 1 robot. */
function marker(given: MarkerGiven = {}): Record<string, unknown> {
  const xyz = (point: readonly (number | null)[]) => ({ x: point[0], y: point[1], z: point[2] });
  const rgba = (colour: readonly number[]) => ({ r: colour[0], g: colour[1], b: colour[2], a: colour[3] });
  const [qx, qy, qz, qw] = given.orientation ?? [0, 0, 0, 1];
  return {
    header: { seq: 0, stamp: { secs: 10, nsecs: 0 }, frame_id: given.frame ?? 'map' },
    ns: given.ns ?? 'goal',
    id: given.id ?? 0,
    type: given.type ?? 1,
    action: given.action ?? 0,
    pose: { position: xyz(given.position ?? [1, 2, 0.5]), orientation: { x: qx, y: qy, z: qz, w: qw } },
    scale: xyz(given.scale ?? [0.2, 0.3, 0.4]),
    color: rgba(given.colour ?? [1, 0, 0, 1]),
    lifetime: given.lifetime ?? { secs: 0, nsecs: 0 },
    frame_locked: given.frameLocked ?? false,
    points: (given.points ?? []).map(xyz),
    colors: (given.colours ?? []).map(rgba),
    text: given.text ?? '',
    mesh_resource: '',
    mesh_use_embedded_materials: false,
  };
}

function pathMessage(positions: Array<[number | null, number, number]>, frame = 'map'): Record<string, unknown> {
  return {
    header: { seq: 3, stamp: { secs: 10, nsecs: 0 }, frame_id: frame },
    poses: positions.map(([x, y, z]) => ({
      header: { seq: 0, stamp: { secs: 10, nsecs: 0 }, frame_id: frame },
      pose: { position: { x, y, z }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    })),
  };
}

describe('paths', () => {
  it('reads the positions in the header’s frame', () => {
    expect(
      readPath(
        pathMessage(
          [
            [0, 0, 0],
            [1.23456789, 2, 0],
          ],
          'odom',
        ),
        '/plan',
      ),
    ).toEqual({ ok: true, frame: 'odom', pointsM: [0, 0, 0, 1.2346, 2, 0], poses: 2 });
  });

  it('thins a long path evenly and keeps its goal', () => {
    const poses = Array.from({ length: MAX_PATH_POSES * 3 + 1 }, (_, index): [number, number, number] => [index, 0, 0]);
    const read = readPath(pathMessage(poses), '/plan');
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.pointsM.length / 3).toBeLessThanOrEqual(MAX_PATH_POSES + 1);
    expect(read.pointsM.slice(-3)).toEqual([MAX_PATH_POSES * 3, 0, 0]);
  });

  it('refuses a path with a NaN (JSON null), naming the pose', () => {
    expect(
      readPath(
        pathMessage([
          [0, 0, 0],
          [null, 1, 0],
        ]),
        '/plan',
      ),
    ).toEqual({
      ok: false,
      problem: 'the path on /plan is not drawn: /plan.poses[1].pose.position.x: expected a finite number, got NaN',
    });
  });

  it('refuses a path with no frame, and one that is not a path', () => {
    expect(readPath(pathMessage([[0, 0, 0]], ''), '/plan')).toEqual({
      ok: false,
      problem: 'the path on /plan names no frame (header.frame_id is empty): it is not drawn',
    });
    expect(readPath({ data: 'x' }, '/plan')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^the path on \/plan could not be read: \/plan\.header/),
    });
  });
});

describe('markers', () => {
  it('reads each type the view draws, with its pose, scale, colour, points and text', () => {
    const read = readMarkers(
      {
        markers: [
          marker({ type: 0 }),
          marker({
            id: 1,
            type: 0,
            points: [
              [0, 0, 0],
              [1, 0, 0],
            ],
            scale: [0.05, 0.1, 0],
          }),
          marker({ id: 2, type: 2 }),
          marker({ id: 3, type: 3 }),
          marker({
            id: 4,
            type: 4,
            points: [
              [0, 0, 0],
              [1, 1, 0],
              [2, 0, 0],
            ],
            scale: [0.02, 0, 0],
          }),
          marker({
            id: 5,
            type: 5,
            points: [
              [0, 0, 0],
              [1, 1, 0],
            ],
            scale: [0.02, 0, 0],
          }),
          marker({ id: 6, type: 6, points: [[0, 0, 0]], colours: [[0, 1, 0, 0.5]] }),
          marker({ id: 7, type: 7, points: [[0, 0, 0]] }),
          marker({
            id: 8,
            type: 8,
            points: [
              [0, 0, 0],
              [0, 0, 1],
            ],
            scale: [0.05, 0.05, 0],
          }),
          marker({ id: 9, type: 9, text: 'goal', scale: [0, 0, 0.3] }),
          marker({
            id: 11,
            type: 11,
            points: [
              [0, 0, 0],
              [1, 0, 0],
              [0, 1, 0],
            ],
          }),
        ],
      },
      '/markers',
    );
    expect(read.problems).toEqual([]);
    expect(read.commands.map((command) => command.action === 'add' && command.shape.kind)).toEqual([
      'arrow',
      'arrow',
      'sphere',
      'cylinder',
      'line-strip',
      'line-list',
      'cube-list',
      'sphere-list',
      'points',
      'text',
      'triangle-list',
    ]);
    expect(read.commands[0]).toEqual({
      action: 'add',
      key: markerKey('/markers', 'goal', 0),
      name: 'marker goal/0 on /markers',
      frame: 'map',
      frameLocked: false,
      lifetimeMs: 0,
      shape: { kind: 'arrow', pose: { t: [1, 2, 0.5], q: [0, 0, 0, 1] }, scale: [0.2, 0.3, 0.4], colour: [1, 0, 0, 1] },
    });
    expect(read.commands[1]).toMatchObject({ shape: { pointsM: [0, 0, 0, 1, 0, 0] } });
    expect(read.commands[6]).toMatchObject({ shape: { pointsM: [0, 0, 0], colours: [0, 1, 0, 0.5] } });
    expect(read.commands[9]).toMatchObject({ shape: { text: 'goal', scale: [0, 0, 0.3] } });
  });

  it('takes MODIFY as ADD, DELETE by namespace and id, and DELETEALL', () => {
    const read = readMarkers({ markers: [marker({ action: 1 }), marker({ action: 2, id: 4, ns: 'obstacles' }), marker({ action: 3 })] }, '/markers');
    expect(read.commands.map((command) => command.action)).toEqual(['add', 'delete', 'delete-all']);
    expect(read.commands[1]).toEqual({ action: 'delete', key: markerKey('/markers', 'obstacles', 4) });
  });

  it('reads a lifetime in ROS 1 and ROS 2 form, frame_locked, an all-zero orientation as the identity', () => {
    const ros1 = readMarkers(marker({ lifetime: { secs: 1, nsecs: 500_000_000 }, frameLocked: true, orientation: [0, 0, 0, 0] }), '/marker', true);
    expect(ros1.commands[0]).toMatchObject({ lifetimeMs: 1500, frameLocked: true, shape: { pose: { q: [0, 0, 0, 1] } } });
    const ros2 = readMarkers(marker({ lifetime: { sec: 2, nanosec: 250_000_000 } }), '/marker', true);
    expect(ros2.commands[0]).toMatchObject({ lifetimeMs: 2250 });
  });

  it('leaves out each marker that cannot be drawn with a problem naming it, and keeps the rest', () => {
    const tooMany = Array.from({ length: MAX_MARKER_POINTS + 1 }, (): [number, number, number] => [0, 0, 0]);
    const read = readMarkers(
      {
        markers: [
          marker({ id: 1, position: [null, 0, 0] }),
          marker({ id: 2, scale: [null, 1, 1] }),
          marker({ id: 3, type: 42 }),
          marker({ id: 4, type: 8, points: tooMany, scale: [0.1, 0.1, 0] }),
          marker({ id: 5, orientation: [0, 0, 2, 0] }),
          marker({ id: 6, scale: [0, 1, 1] }),
          marker({ id: 7, frame: '' }),
          marker({ id: 8, type: 10 }),
          marker({ id: 9, type: 5, points: [[0, 0, 0]], scale: [0.1, 0, 0] }),
          marker({
            id: 10,
            type: 4,
            points: [[0, 0, 0]],
            colours: [
              [0, 0, 0, 1],
              [0, 0, 0, 1],
            ],
            scale: [0.1, 0, 0],
          }),
          marker({ id: 11, action: 7 }),
          marker({ id: 12 }),
        ],
      },
      '/markers',
    );
    expect(read.problems.map(({ problem }) => problem)).toEqual([
      'the marker goal/1 on /markers is not drawn: pose.position.x: expected a finite number, got NaN',
      'the marker goal/2 on /markers is not drawn: scale.x: expected a finite number, got NaN',
      'the marker goal/3 on /markers is not drawn: its type 42 is not a Marker type (0–11)',
      `the marker goal/4 on /markers is not drawn: it has ${MAX_MARKER_POINTS + 1} points, over the ${MAX_MARKER_POINTS} a marker may have`,
      'the marker goal/5 on /markers is not drawn: its pose.orientation is not a unit quaternion (length 2.00)',
      'the marker goal/6 on /markers is not drawn: its scale.x is 0; its size must be above 0',
      'the marker goal/7 on /markers is not drawn: it names no frame (header.frame_id is empty)',
      'the marker goal/8 on /markers is not drawn: it is a MESH_RESOURCE marker, and the cockpit cannot fetch the robot’s mesh files',
      'the marker goal/9 on /markers is not drawn: a LINE_LIST needs its points in pairs, it has 1',
      'the marker goal/10 on /markers is not drawn: it has 1 points but 2 colors (one per point, or none)',
      'the marker goal/11 on /markers has action 7, which is none of ADD/MODIFY (0), DELETE (2), DELETEALL (3): ignored',
    ]);
    expect(read.problems[0]!.key).toBe(markerKey('/markers', 'goal', 1));
    expect(read.commands).toHaveLength(1);
    expect(read.commands[0]).toMatchObject({ key: markerKey('/markers', 'goal', 12) });
  });

  it('says when a message is not a MarkerArray, or a marker is not an object', () => {
    expect(readMarkers({ data: 1 }, '/markers').problems[0]?.problem).toBe('a message on /markers is not a MarkerArray: it has no markers list');
    expect(readMarkers({ markers: [3] }, '/markers').problems[0]?.problem).toBe(
      'a marker on /markers could not be read: /markers.markers[0]: expected an object, got number 3',
    );
  });
});
