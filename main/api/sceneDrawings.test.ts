// The planned paths and markers of the scene, fed through the scene's source and one connection's
// feed as a link delivers them: each hangs on its frame (a pinned marker on its tree's root where its
// frame was), ADD/MODIFY/DELETE/DELETEALL by namespace and id, lifetimes on the scene's clock, the
// caps, and a marker or path whose frame cannot be placed said in words, never drawn at the origin.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SceneDrawingsEvent, SceneEvent, SceneShape } from '../core/contract.ts';
import type { TopicInfo } from '../core/link.ts';
import type { RosFields } from '../core/messages.ts';
import { TfTree } from '../core/tfTree.ts';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import { SceneDrawings } from './sceneDrawings.ts';
import { SCENE_PERIOD_MS, SceneFeed } from './sceneFeed.ts';
import { MAX_DRAWING_TOPICS, SceneSource } from './sceneSource.ts';

const TOPICS: TopicInfo[] = [
  { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
  { topic: '/plan', kind: 'RosFields', type: 'nav_msgs/msg/Path' },
  { topic: '/markers', kind: 'RosFields', type: 'visualization_msgs/MarkerArray' },
  { topic: '/goal_marker', kind: 'RosFields', type: 'visualization_msgs/Marker' },
];
const S = Math.SQRT1_2;

let clock: { nowMs: number };
let link: ScriptedLink;
/** What the robot offers now. */
let offered: TopicInfo[];

beforeEach(() => {
  vi.useFakeTimers();
  clock = { nowMs: 1_700_000_000_000 };
  offered = [...TOPICS];
  link = new ScriptedLink('rover', 'present', offered);
});
afterEach(() => {
  vi.useRealTimers();
});

function advance(ms: number): void {
  clock.nowMs += ms;
  vi.advanceTimersByTime(ms);
}

/** map → odom (1, 0, 0); odom → base_link (2, 0, 0) turned 90° about z. */
function tf(baseXM = 2): RosFields {
  const transform = (parent: string, child: string, t: [number, number, number], q: [number, number, number, number]) => ({
    header: { frame_id: parent, stamp: { secs: 0, nsecs: 0 }, seq: 0 },
    child_frame_id: child,
    transform: { translation: { x: t[0], y: t[1], z: t[2] }, rotation: { x: q[0], y: q[1], z: q[2], w: q[3] } },
  });
  return {
    kind: 'RosFields',
    rosType: 'tf2_msgs/TFMessage',
    fields: { transforms: [transform('map', 'odom', [1, 0, 0], [0, 0, 0, 1]), transform('odom', 'base_link', [baseXM, 0, 0], [0, 0, S, S])] },
  };
}

function cube(id: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    header: { frame_id: 'map', stamp: { secs: 0, nsecs: 0 }, seq: 0 },
    ns: 'obstacles',
    id,
    type: 1,
    action: 0,
    pose: { position: { x: id, y: 0, z: 0.2 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    scale: { x: 0.5, y: 0.5, z: 0.4 },
    color: { r: 1, g: 1, b: 1, a: 1 },
    lifetime: { secs: 0, nsecs: 0 },
    frame_locked: false,
    points: [],
    colors: [],
    text: '',
    ...extra,
  };
}

function markerArray(markers: Array<Record<string, unknown>>): RosFields {
  return { kind: 'RosFields', rosType: 'visualization_msgs/MarkerArray', fields: { markers } };
}

function path(frame: string, positions: Array<[number, number]>): RosFields {
  const header = { frame_id: frame, stamp: { sec: 0, nanosec: 0 } };
  return {
    kind: 'RosFields',
    rosType: 'nav_msgs/msg/Path',
    fields: { header, poses: positions.map(([x, y]) => ({ header, pose: { position: { x, y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } } })) },
  };
}

function connect(fixedFrame = 'map') {
  const source = new SceneSource(link, { clock: () => clock.nowMs, sensorFrames: () => ({}) });
  const scenes: SceneEvent[] = [];
  const drawings: SceneDrawingsEvent[] = [];
  const feed = new SceneFeed(source, fixedFrame, {
    sendEvent: (event) => {
      if (event.type === 'scene') scenes.push(event);
      else if (event.type === 'scene-drawings') drawings.push(event);
      return true;
    },
    sendBinary: () => true,
  });
  const shapes = (): SceneShape[] => drawings.at(-1)?.shapes ?? [];
  return { source, feed, scenes, drawings, shapes, shape: (key: string) => shapes().find((one) => one.key === key), problems: () => scenes.at(-1)!.problems };
}

describe('paths and markers in the scene', () => {
  it('follows every path and marker topic, and sends each shape once per change', () => {
    const ui = connect();
    expect(link.subscribedTopics()).toEqual(['/goal_marker', '/markers', '/plan', '/tf']);
    link.deliver('/tf', tf());
    link.deliver(
      '/plan',
      path('odom', [
        [0, 0],
        [1, 0],
        [1, 1],
      ]),
    );
    link.deliver('/markers', markerArray([cube(1), cube(2)]));
    advance(SCENE_PERIOD_MS);
    expect(ui.shapes().map((shape) => shape.key)).toEqual(['/plan', '/markers obstacles/1', '/markers obstacles/2']);
    expect(ui.shape('/plan')).toMatchObject({ kind: 'path', frame: 'odom', pointsM: [0, 0, 0, 1, 0, 0, 1, 1, 0] });
    const sent = ui.drawings.length;
    // The same markers again (a publisher that repeats them each second): nothing new goes out.
    link.deliver('/markers', markerArray([{ ...cube(0), action: 3 }, cube(1), cube(2)]));
    advance(SCENE_PERIOD_MS * 3);
    expect(ui.drawings.length).toBe(sent);
    expect(ui.problems()).toEqual([]);
    ui.feed.close();
  });

  it('replaces a marker by namespace and id, deletes one, and deletes all of a topic', () => {
    const ui = connect();
    link.deliver('/tf', tf());
    link.deliver('/markers', markerArray([cube(1), cube(2), cube(3)]));
    link.deliver('/goal_marker', { kind: 'RosFields', rosType: 'visualization_msgs/Marker', fields: { ...cube(1), ns: 'goal', type: 3 } });
    advance(SCENE_PERIOD_MS);
    const before = ui.shape('/markers obstacles/2')!.version;
    link.deliver('/markers', markerArray([cube(2, { action: 1, scale: { x: 1, y: 1, z: 1 } }), cube(3, { action: 2 })]));
    advance(SCENE_PERIOD_MS);
    expect(ui.shape('/markers obstacles/2')).toMatchObject({ scale: [1, 1, 1] });
    expect(ui.shape('/markers obstacles/2')!.version).toBeGreaterThan(before);
    expect(ui.shape('/markers obstacles/3')).toBeUndefined();
    link.deliver('/markers', markerArray([cube(0, { action: 3 })]));
    advance(SCENE_PERIOD_MS);
    // DELETEALL leaves another topic's markers alone.
    expect(ui.shapes().map((shape) => shape.key)).toEqual(['/goal_marker goal/1']);
    ui.feed.close();
  });

  it('pins a marker where its frame was when it came, and moves a frame-locked one with its frame', () => {
    const ui = connect();
    link.deliver('/tf', tf(2));
    const onBase = {
      header: { frame_id: 'base_link', stamp: { secs: 0, nsecs: 0 }, seq: 0 },
      pose: { position: { x: 1, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    };
    link.deliver('/markers', markerArray([cube(1, onBase), cube(2, { ...onBase, frame_locked: true })]));
    advance(SCENE_PERIOD_MS);
    // map ← base_link is (3, 0, 0) turned 90°: its (1, 0, 0) is (3, 1, 0) in the map.
    const pinned = ui.shape('/markers obstacles/1')!;
    expect(pinned.frame).toBe('map');
    pinned.pose.t.forEach((value, index) => expect(value).toBeCloseTo([3, 1, 0][index]!, 9));
    pinned.pose.q.forEach((value, index) => expect(value).toBeCloseTo([0, 0, S, S][index]!, 9));
    expect(ui.shape('/markers obstacles/2')).toMatchObject({ frame: 'base_link', pose: { t: [1, 0, 0] } });
    // The robot moves on: the pinned marker stays, the frame-locked one hangs on base_link (placed by the scene's frames).
    link.deliver('/tf', tf(5));
    advance(SCENE_PERIOD_MS);
    expect(ui.shape('/markers obstacles/1')!.pose.t[0]).toBeCloseTo(3, 9);
    ui.feed.close();
  });

  it('says in words why a path or marker whose frame has no transform is not drawn, and draws the rest', () => {
    const ui = connect();
    link.deliver('/tf', tf());
    link.deliver(
      '/plan',
      path('elsewhere', [
        [0, 0],
        [1, 0],
      ]),
    );
    link.deliver('/markers', markerArray([cube(1, { header: { frame_id: 'nowhere', stamp: { secs: 0, nsecs: 0 }, seq: 0 } }), cube(2)]));
    advance(SCENE_PERIOD_MS);
    expect(ui.problems()).toContain('Marker obstacles/1 on /markers not drawn: no frame nowhere in the TF tree; it has odom, base_link, map');
    expect(ui.problems()).toContain('Path /plan not drawn: elsewhere cannot be placed in map: no frame elsewhere in the TF tree; it has odom, base_link, map');
    // The waiting marker is not sent at all (never drawn at the origin); the path goes with its frame, which the view cannot place.
    expect(ui.shape('/markers obstacles/1')).toBeUndefined();
    expect(ui.shape('/markers obstacles/2')).toMatchObject({ frame: 'map' });

    // Many markers waiting for the same missing frame say so in one line, naming three.
    const lost = { header: { frame_id: 'nowhere', stamp: { secs: 0, nsecs: 0 }, seq: 0 } };
    link.deliver('/markers', markerArray([3, 4, 5, 6, 7].map((id) => cube(id, lost))));
    advance(SCENE_PERIOD_MS);
    const waiting = ui.problems().filter((problem) => problem.includes('nowhere'));
    expect(waiting).toEqual([
      'Marker obstacles/1 on /markers, Marker obstacles/3 on /markers, Marker obstacles/4 on /markers and 3 more not drawn: no frame nowhere in the TF tree; it has odom, base_link, map',
    ]);
    ui.feed.close();
  });

  it('says when a path or marker’s frame is stale in the fixed frame', () => {
    const ui = connect();
    link.deliver('/tf', tf());
    link.deliver(
      '/plan',
      path('base_link', [
        [0, 0],
        [1, 0],
      ]),
    );
    advance(SCENE_PERIOD_MS);
    expect(ui.problems().filter((problem) => problem.startsWith('Path'))).toEqual([]);
    advance(3000);
    expect(ui.problems().find((problem) => problem.startsWith('Path /plan not drawn: base_link cannot be placed in map:'))).toMatch(/stale|old/);
    ui.feed.close();
  });

  it('names a bad marker among the scene’s problems, and keeps drawing the good ones', () => {
    const ui = connect();
    link.deliver('/tf', tf());
    link.deliver('/markers', markerArray([cube(1, { scale: { x: null, y: 1, z: 1 } }), cube(2)]));
    link.deliver('/plan', path('map', [[0, 0]]));
    advance(SCENE_PERIOD_MS);
    expect(ui.problems()).toContain('the marker obstacles/1 on /markers is not drawn: scale.x: expected a finite number, got NaN');
    expect(ui.shapes().map((shape) => shape.key)).toEqual(['/markers obstacles/2', '/plan']);
    // Fixed later: the problem goes.
    link.deliver('/markers', markerArray([cube(1)]));
    advance(SCENE_PERIOD_MS);
    expect(ui.problems()).toEqual([]);
    // An empty path clears the topic's path.
    link.deliver('/plan', path('map', []));
    advance(SCENE_PERIOD_MS);
    expect(ui.shape('/plan')).toBeUndefined();
    ui.feed.close();
  });

  it('ends a marker when its lifetime runs out on the scene’s clock', () => {
    const ui = connect();
    link.deliver('/tf', tf());
    link.deliver('/markers', markerArray([cube(1, { lifetime: { secs: 1, nsecs: 0 } }), cube(2)]));
    advance(SCENE_PERIOD_MS);
    expect(ui.shapes()).toHaveLength(2);
    advance(1000);
    expect(ui.shapes().map((shape) => shape.key)).toEqual(['/markers obstacles/2']);
    ui.feed.close();
  });

  it('drops a topic’s shapes when the robot stops offering it', () => {
    const ui = connect();
    link.deliver('/tf', tf());
    link.deliver('/markers', markerArray([cube(1)]));
    advance(SCENE_PERIOD_MS);
    expect(ui.shapes()).toHaveLength(1);
    offered.splice(
      offered.findIndex((topic) => topic.topic === '/markers'),
      1,
    );
    advance(1000);
    expect(ui.shapes()).toEqual([]);
    ui.feed.close();
  });
});

describe('the caps', () => {
  it('follows at most MAX_DRAWING_TOPICS path and marker topics, and names the ones left out', () => {
    const many = Array.from({ length: MAX_DRAWING_TOPICS + 2 }, (_, index): TopicInfo => ({
      topic: `/path${index}`,
      kind: 'RosFields',
      type: 'nav_msgs/Path',
    }));
    offered.push(...many);
    const ui = connect();
    advance(SCENE_PERIOD_MS);
    expect(link.subscribedTopics()).toHaveLength(1 + MAX_DRAWING_TOPICS);
    expect(ui.problems()).toContain(
      `${MAX_DRAWING_TOPICS} path and marker topics are drawn, the most at once: /path13, /path14, /path15, /path16, /path17 left out`,
    );
    ui.feed.close();
  });

  it('refuses a marker past the most shapes or points, naming it and the limit', () => {
    const tree = new TfTree({ nowMs: () => 0 });
    const problems = new Map<string, string>();
    const drawings = new SceneDrawings({
      tree,
      clock: () => 0,
      problem: (key, problem) => (problem === undefined ? problems.delete(key) : problems.set(key, problem)),
      maxShapes: 2,
      maxPoints: 4,
    });
    const list = (id: number, points: number) =>
      cube(id, { type: 8, frame_locked: true, scale: { x: 0.1, y: 0.1, z: 0 }, points: Array.from({ length: points }, () => ({ x: 0, y: 0, z: 0 })) });
    drawings.onMarkers('/markers', { markers: [list(1, 3), list(2, 2)] });
    expect([...problems.values()]).toEqual([
      "the scene's paths and markers hold 4 points, its limit: the marker obstacles/2 on /markers (2 points) is not drawn",
    ]);
    drawings.onMarkers('/markers', { markers: [list(2, 1), list(3, 0)] });
    expect(problems.get('marker:/markers obstacles/3')).toBe('the scene holds 2 paths and markers, its limit: the marker obstacles/3 on /markers is not drawn');
    expect(drawings.snapshot().drawings.map(({ shape }) => shape.key)).toEqual(['/markers obstacles/1', '/markers obstacles/2']);
    // Room again once one goes.
    drawings.onMarkers('/markers', { markers: [{ ...list(1, 0), action: 2 }, list(3, 0)] });
    expect(drawings.snapshot().drawings.map(({ shape }) => shape.key)).toEqual(['/markers obstacles/2', '/markers obstacles/3']);
  });
});
