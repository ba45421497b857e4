// The scene of one UI connection, fed RosFields as a link delivers them (ROS 1 and ROS 2 shapes):
// the poses it sends, what it says when the tree is stale, cyclic or fed NaN, the robot model and the
// map once per revision, and the link left alone once nobody shows the scene.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeBinaryFrame, encodeOccupancyGridFrame, type SceneEvent, type SceneFrame, type SceneRobotEvent } from '../core/contract.ts';
import type { TopicInfo } from '../core/link.ts';
import type { RosFields } from '../core/messages.ts';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import { SCENE_PERIOD_MS, SceneFeed } from './sceneFeed.ts';
import { SceneSource, type SceneSourceOptions } from './sceneSource.ts';

const TOPICS: TopicInfo[] = [
  { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
  { topic: '/tf_static', kind: 'RosFields', type: 'tf2_msgs/TFMessage' },
  { topic: '/robot_description', kind: 'RosFields', type: 'std_msgs/String' },
  { topic: '/map', kind: 'RosFields', type: 'nav_msgs/OccupancyGrid' },
  { topic: '/scan', kind: 'LaserScan', type: 'sensor_msgs/LaserScan' },
];
const S = Math.SQRT1_2;
const URDF = '<robot name="rover"><link name="base_link"/></robot>';

interface Transform {
  parent: string;
  child: string;
  t: [number | null, number, number];
  q?: [number, number, number, number];
  stampMs?: number;
}

/** A TFMessage as rosbridge gives it from a ROS 1 robot (`{secs, nsecs}`), or from a ROS 2 one (`{sec, nanosec}`). */
function tfMessage(transforms: Transform[], ros2 = false): RosFields {
  return {
    kind: 'RosFields',
    rosType: ros2 ? 'tf2_msgs/msg/TFMessage' : 'tf2_msgs/TFMessage',
    fields: {
      transforms: transforms.map(({ parent, child, t, q = [0, 0, 0, 1], stampMs = 0 }) => {
        const secs = Math.floor(stampMs / 1000);
        const nanos = Math.round((stampMs - secs * 1000) * 1e6);
        return {
          header: { frame_id: parent, stamp: ros2 ? { sec: secs, nanosec: nanos } : { secs, nsecs: nanos }, ...(ros2 ? {} : { seq: 0 }) },
          child_frame_id: child,
          transform: { translation: { x: t[0], y: t[1], z: t[2] }, rotation: { x: q[0], y: q[1], z: q[2], w: q[3] } },
        };
      }),
    },
  };
}

function fields(rosType: string, values: Record<string, unknown>): RosFields {
  return { kind: 'RosFields', rosType, fields: values };
}

function grid(width: number, height: number, data: unknown, resolution = 0.05): RosFields {
  return fields('nav_msgs/OccupancyGrid', {
    header: { frame_id: 'map', stamp: { secs: 0, nsecs: 0 } },
    info: {
      map_load_time: { secs: 0, nsecs: 0 },
      resolution,
      width,
      height,
      origin: { position: { x: -10, y: -5, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    },
    data,
  });
}

interface Connection {
  feed: SceneFeed;
  scenes: SceneEvent[];
  robots: SceneRobotEvent[];
  binaries: Uint8Array[];
  last(): SceneEvent;
  frame(name: string): SceneFrame | undefined;
}

let clock: { nowMs: number };
let link: ScriptedLink;

beforeEach(() => {
  vi.useFakeTimers();
  clock = { nowMs: 1_700_000_000_000 };
  link = new ScriptedLink('rover', 'present', TOPICS);
});
afterEach(() => {
  vi.useRealTimers();
});

function sourceOf(options: Partial<SceneSourceOptions> = {}): SceneSource {
  return new SceneSource(link, { clock: () => clock.nowMs, sensorFrames: () => ({ scan: '/laser' }), ...options });
}

function connect(source: SceneSource, fixedFrame = 'map'): Connection {
  const scenes: SceneEvent[] = [];
  const robots: SceneRobotEvent[] = [];
  const binaries: Uint8Array[] = [];
  const feed = new SceneFeed(source, fixedFrame, {
    sendEvent: (event) => {
      if (event.type === 'scene') scenes.push(event);
      else if (event.type === 'scene-robot') robots.push(event);
      return true;
    },
    sendBinary: (frame) => {
      binaries.push(frame);
      return true;
    },
  });
  const last = () => scenes.at(-1)!;
  return { feed, scenes, robots, binaries, last, frame: (name) => last().frames.find((frame) => frame.frame === name) };
}

/** The clock and the feed's timers move together. */
function advance(ms: number): void {
  clock.nowMs += ms;
  vi.advanceTimersByTime(ms);
}

function expectPose(frame: SceneFrame | undefined, t: [number, number, number], q: [number, number, number, number]): void {
  expect(frame?.pose, `${frame?.frame} has a pose (${frame?.problem})`).toBeDefined();
  frame!.pose!.t.forEach((value, index) => expect(value).toBeCloseTo(t[index]!, 9));
  frame!.pose!.q.forEach((value, index) => expect(value).toBeCloseTo(q[index]!, 9));
}

/** map → odom (1, 0, 0); odom → base_link (2, 0, 0) turned 90°; base_link → laser (0.5, 0, 0.2), static. */
function deliverRobot(ros2 = false): void {
  link.deliver('/tf_static', tfMessage([{ parent: 'base_link', child: 'laser', t: [0.5, 0, 0.2] }], ros2));
  link.deliver(
    '/tf',
    tfMessage(
      [
        { parent: '/map', child: 'odom', t: [1, 0, 0], stampMs: 5000 },
        { parent: 'odom', child: 'base_link', t: [2, 0, 0], q: [0, 0, S, S], stampMs: 5000 },
      ],
      ros2,
    ),
  );
}

describe('the scene of one connection', () => {
  it('places every frame in the fixed frame, a few times a second', () => {
    const source = sourceOf();
    const ui = connect(source);
    expect(link.subscribedTopics()).toEqual(['/map', '/robot_description', '/tf', '/tf_static']);
    deliverRobot();
    advance(SCENE_PERIOD_MS);
    expect(ui.last().fixedFrame).toBe('map');
    expectPose(ui.frame('map'), [0, 0, 0], [0, 0, 0, 1]);
    expectPose(ui.frame('odom'), [1, 0, 0], [0, 0, 0, 1]);
    expectPose(ui.frame('base_link'), [3, 0, 0], [0, 0, S, S]);
    // (1, 0, 0) + (2, 0, 0) + Rz90 · (0.5, 0, 0.2)
    expectPose(ui.frame('laser'), [3, 0.5, 0.2], [0, 0, S, S]);
    expect(ui.frame('laser')).toMatchObject({ parent: 'base_link', static: true });
    expect(ui.frame('base_link')).toMatchObject({ parent: 'odom', static: false, ageMs: SCENE_PERIOD_MS });
    expect(ui.last().problems).toEqual([]);
    expect(ui.last().sensorFrames).toEqual({ scan: 'laser' });
    const sent = ui.scenes.length;
    advance(SCENE_PERIOD_MS * 5);
    expect(ui.scenes.length).toBe(sent + 5);
    ui.feed.close();
  });

  it('reads a ROS 2 robot’s TFMessage (sec, nanosec) the same', () => {
    link = new ScriptedLink('rover2', 'present', [
      { topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/msg/TFMessage' },
      { topic: '/tf_static', kind: 'RosFields', type: 'tf2_msgs/msg/TFMessage' },
    ]);
    const ui = connect(sourceOf(), 'odom');
    deliverRobot(true);
    advance(SCENE_PERIOD_MS);
    expectPose(ui.frame('laser'), [2, 0.5, 0.2], [0, 0, S, S]);
    ui.feed.close();
  });

  it('draws in another fixed frame when asked, at once', () => {
    const ui = connect(sourceOf());
    deliverRobot();
    ui.feed.setFixedFrame('base_link');
    expect(ui.last().fixedFrame).toBe('base_link');
    expectPose(ui.frame('laser'), [0.5, 0, 0.2], [0, 0, 0, 1]);
    // map in base_link: the inverse of (3, 0, 0) turned 90°.
    expectPose(ui.frame('map'), [0, 3, 0], [0, 0, -S, S]);
    ui.feed.close();
  });

  it('gives no pose to a frame behind a stale transform, and says how old it is', () => {
    const ui = connect(sourceOf());
    deliverRobot();
    advance(2300);
    expect(ui.frame('base_link')?.pose).toBeUndefined();
    // Every silent link on the way, nearest first.
    expect(ui.frame('base_link')?.problem).toBe('odom → base_link is 2.3 s old; map → odom is 2.3 s old');
    expect(ui.frame('laser')?.pose).toBeUndefined();
    // map → odom is stale too; the fixed frame itself is always placed.
    expect(ui.frame('odom')?.problem).toBe('map → odom is 2.3 s old');
    expectPose(ui.frame('map'), [0, 0, 0], [0, 0, 0, 1]);
    // Transforms coming again place it again.
    link.deliver('/tf', tfMessage([{ parent: 'map', child: 'odom', t: [1, 0, 0], stampMs: 7300 }]));
    link.deliver('/tf', tfMessage([{ parent: 'odom', child: 'base_link', t: [2, 0, 0], stampMs: 7300 }]));
    advance(SCENE_PERIOD_MS);
    expectPose(ui.frame('laser'), [3.5, 0, 0.2], [0, 0, 0, 1]);
    ui.feed.close();
  });

  it('refuses a transform that would close a cycle, says so, and keeps the rest placed', () => {
    const ui = connect(sourceOf());
    deliverRobot();
    link.deliver('/tf', tfMessage([{ parent: 'laser', child: 'map', t: [0, 0, 0], stampMs: 5000 }]));
    advance(SCENE_PERIOD_MS);
    expect(ui.last().problems).toEqual(['the transform laser → map would close a cycle (map → odom → base_link → laser already) and was refused']);
    expectPose(ui.frame('laser'), [3, 0.5, 0.2], [0, 0, S, S]);
    ui.feed.close();
  });

  it('refuses a transform with a NaN (JSON null), naming the frames, and keeps the last good one', () => {
    const ui = connect(sourceOf());
    deliverRobot();
    link.deliver('/tf', tfMessage([{ parent: 'odom', child: 'base_link', t: [null, 0, 0], stampMs: 5050 }]));
    advance(SCENE_PERIOD_MS);
    expect(ui.last().problems).toEqual(['the transform odom → base_link has a NaN in translation.x and was refused']);
    expectPose(ui.frame('base_link'), [3, 0, 0], [0, 0, S, S]);
    ui.feed.close();
  });

  it('says what is wrong with a malformed TFMessage, keeps its good transforms, and never throws into the link', () => {
    const ui = connect(sourceOf());
    link.deliver('/tf', fields('tf2_msgs/TFMessage', { transform: [] }));
    link.deliver('/tf_static', fields('tf2_msgs/TFMessage', { transforms: 'none' }));
    advance(SCENE_PERIOD_MS);
    expect(ui.last().problems).toEqual([
      'a message on /tf is not a TFMessage: it has no transforms list',
      'a message on /tf_static is not a TFMessage: it has transforms as string "none"',
      'no transform has arrived on /tf, /tf_static yet',
    ]);
    const good = tfMessage([{ parent: 'map', child: 'odom', t: [1, 0, 0], stampMs: 5000 }]);
    const broken = { ...(good.fields['transforms'] as object[])[0]!, child_frame_id: undefined };
    link.deliver('/tf', fields('tf2_msgs/TFMessage', { transforms: [...(good.fields['transforms'] as object[]), broken, 'not a transform'] }));
    advance(SCENE_PERIOD_MS);
    // A topic's newest problem replaces its last one.
    expect(ui.last().problems).toEqual([
      'a message on /tf_static is not a TFMessage: it has transforms as string "none"',
      '/tf: 2 malformed transforms skipped (/tf.transforms[1].child_frame_id: missing; /tf.transforms[2]: expected an object, got string "not a transform")',
    ]);
    expectPose(ui.frame('odom'), [1, 0, 0], [0, 0, 0, 1]);
    ui.feed.close();
  });

  it('names the frames the tree has when the fixed frame is not one of them', () => {
    const ui = connect(sourceOf(), 'world');
    deliverRobot();
    advance(SCENE_PERIOD_MS);
    expect(ui.last().problems).toEqual(['the fixed frame world is not in the TF tree; it has laser, odom, base_link, map']);
    expect(
      ui
        .last()
        .frames.map((frame) => frame.frame)
        .sort(),
    ).toEqual(['base_link', 'laser', 'map', 'odom']);
    expect(ui.last().frames.every((frame) => frame.pose === undefined && frame.problem === 'the fixed frame world is not in the TF tree')).toBe(true);
    ui.feed.close();
  });

  it('says when the robot offers no TF at all', () => {
    link = new ScriptedLink('serial bot', 'present', [{ topic: '/scan', kind: 'LaserScan' }]);
    const ui = connect(sourceOf());
    expect(ui.last().frames).toEqual([]);
    expect(ui.last().problems).toEqual(['the robot offers no TF topic (tf2_msgs/TFMessage): its frames cannot be placed']);
    expect(ui.last().robot).toEqual({
      revision: 0,
      source: 'none',
      problem: 'the robot offers no robot_description topic (std_msgs/String): give its URDF with reins start --urdf FILE',
    });
    ui.feed.close();
  });
});

describe('the robot model', () => {
  it('goes out once per revision, also to a connection that comes later', () => {
    const source = sourceOf();
    const first = connect(source);
    expect(first.last().robot).toEqual({ revision: 0, source: '/robot_description', problem: 'nothing has arrived on /robot_description yet' });
    link.deliver('/robot_description', fields('std_msgs/String', { data: URDF }));
    advance(SCENE_PERIOD_MS);
    expect(first.robots).toEqual([{ type: 'scene-robot', revision: 1, source: '/robot_description', urdf: URDF }]);
    expect(first.last().robot).toEqual({ revision: 1, source: '/robot_description' });
    // The same text again (a latched topic on reconnect) is no new revision.
    link.deliver('/robot_description', fields('std_msgs/String', { data: URDF }));
    advance(SCENE_PERIOD_MS * 3);
    expect(first.robots).toHaveLength(1);
    const later = connect(source);
    expect(later.robots).toEqual([{ type: 'scene-robot', revision: 1, source: '/robot_description', urdf: URDF }]);
    const changed = URDF.replace('rover', 'rover-with-arm');
    link.deliver('/robot_description', fields('std_msgs/String', { data: changed }));
    advance(SCENE_PERIOD_MS);
    expect(first.robots.map((event) => event.revision)).toEqual([1, 2]);
    expect(later.robots.at(-1)?.urdf).toBe(changed);
    first.feed.close();
    later.feed.close();
  });

  it('keeps the model it has when the topic sends something that is not one, and says so', () => {
    const ui = connect(sourceOf());
    link.deliver('/robot_description', fields('std_msgs/String', { data: URDF }));
    link.deliver('/robot_description', fields('std_msgs/String', { data: '<sdf version="1.6"/>' }));
    link.deliver('/robot_description', fields('std_msgs/String', { text: URDF }));
    advance(SCENE_PERIOD_MS);
    expect(ui.robots).toHaveLength(1);
    expect(ui.last().robot).toEqual({
      revision: 1,
      source: '/robot_description',
      problem: 'a message on /robot_description has no data text (std_msgs/String): the robot model is not updated',
    });
    ui.feed.close();
  });

  it('takes the --urdf file over the robot’s topic, which it leaves unsubscribed', () => {
    const ui = connect(sourceOf({ robotModelFile: { path: '/robots/rover.urdf', urdf: URDF } }));
    expect(link.subscribedTopics()).toEqual(['/map', '/tf', '/tf_static']);
    expect(ui.robots).toEqual([{ type: 'scene-robot', revision: 1, source: 'file /robots/rover.urdf', urdf: URDF }]);
    ui.feed.close();
  });
});

describe('the map', () => {
  it('is thinned by max-pooling to at most MAX_MAP_CELLS_A_SIDE a side, its cells made larger to match', () => {
    const ui = connect(sourceOf());
    // 3000 × 2 cells of 5 cm, as JSON carries int8[] (a plain array): thinned by 3 to 1000 × 1 cells of 15 cm.
    const width = 3000;
    const data = new Array<number>(width * 2).fill(-1);
    data[width + 0] = 0; // block 0: one free cell among unknown ones → free
    data[4] = 100; // block 1: a wall in a free block → wall
    data[3] = 0;
    data[2999] = 50; // the last block: the highest of its cells
    data[width + 2998] = 0;
    link.deliver('/map', grid(width, 2, data));
    advance(SCENE_PERIOD_MS);
    const expected = new Int8Array(1000).fill(-1);
    expected[0] = 0;
    expected[1] = 100;
    expected[999] = 50;
    expect(ui.binaries).toHaveLength(1);
    expect([...ui.binaries[0]!]).toEqual([...encodeOccupancyGridFrame(1, 1000, 1, expected)]);
    expect(decodeBinaryFrame(ui.binaries[0]!)).toMatchObject({ kind: 'map', revision: 1, width: 1000, height: 1 });
    const map = ui.last().map!;
    expect(map).toMatchObject({ topic: '/map', revision: 1, frame: 'map', width: 1000, height: 1 });
    expect(map.resolutionM).toBeCloseTo(0.15, 12);
    expect(map.origin).toEqual({ t: [-10, -5, 0], q: [0, 0, 0, 1] });
    expect(map.problem).toBeUndefined();
    ui.feed.close();
  });

  it('is sent as it came when small enough (CBOR’s Int8Array), once per revision and to each connection', () => {
    const source = sourceOf();
    const first = connect(source);
    const cells = Int8Array.from([-1, 0, 100, 0, -1, 50, 0, 0, 100, -1, -1, 0]);
    link.deliver('/map', grid(4, 3, cells));
    advance(SCENE_PERIOD_MS * 3);
    expect(first.binaries.map((bytes) => [...bytes])).toEqual([[...encodeOccupancyGridFrame(1, 4, 3, cells)]]);
    const later = connect(source);
    expect(later.binaries).toHaveLength(1);
    link.deliver('/map', grid(4, 3, cells));
    advance(SCENE_PERIOD_MS);
    expect(first.binaries.map((bytes) => decodeBinaryFrame(bytes)).map((frame) => frame.kind === 'map' && frame.revision)).toEqual([1, 2]);
    first.feed.close();
    later.feed.close();
  });

  it('says when its width × height disagrees with its data, and sends no cells', () => {
    const ui = connect(sourceOf());
    link.deliver('/map', grid(4, 3, new Int8Array(10)));
    advance(SCENE_PERIOD_MS);
    expect(ui.binaries).toEqual([]);
    expect(ui.last().map?.problem).toBe('the map on /map is 4 × 3 = 12 cells but carries 10: its cells are not drawn');
    ui.feed.close();
  });

  it('says why a map that cannot be read is not drawn', () => {
    const ui = connect(sourceOf());
    link.deliver('/map', grid(4, 3, ['a', 'b']));
    advance(SCENE_PERIOD_MS);
    expect(ui.last().map).toBeUndefined();
    expect(ui.last().problems).toContain('the map on /map could not be read: /map.data[0]: expected an int8, got string "a"');
    ui.feed.close();
  });

  it('is placed in the fixed frame, or not drawn when its frame cannot be placed', () => {
    const ui = connect(sourceOf(), 'odom');
    link.deliver('/map', grid(4, 3, new Int8Array(12)));
    advance(SCENE_PERIOD_MS);
    expect(ui.last().map?.problem).toBe("the map's frame map cannot be placed in odom: the fixed frame odom is not in the TF tree");
    deliverRobot();
    advance(SCENE_PERIOD_MS);
    // odom ← map is (−1, 0, 0); the origin (−10, −5, 0) on top.
    expect(ui.last().map).toMatchObject({ pose: { t: [-11, -5, 0], q: [0, 0, 0, 1] } });
    expect(ui.last().map?.problem).toBeUndefined();
    ui.feed.close();
  });
});

describe('subscriptions and time', () => {
  it('leaves the robot’s topics once the last connection stops showing the scene', () => {
    const source = sourceOf();
    const first = connect(source);
    const second = connect(source);
    first.feed.close();
    expect(link.subscribedTopics()).toEqual(['/map', '/robot_description', '/tf', '/tf_static']);
    second.feed.close();
    expect(link.subscribedTopics()).toEqual([]);
    const scenesBefore = second.scenes.length;
    advance(SCENE_PERIOD_MS * 3);
    expect(second.scenes.length).toBe(scenesBefore);
  });

  it('keeps static transforms for a connection that comes back, and drops the dynamic ones', () => {
    const source = sourceOf();
    const first = connect(source);
    deliverRobot();
    first.feed.close();
    const again = connect(source);
    expect(again.frame('laser')).toMatchObject({ parent: 'base_link', static: true });
    expect(again.frame('odom')).toBeUndefined();
    again.feed.close();
  });

  it('runs on the scene’s clock: a paused replay goes not stale, a seek back drops the dynamic transforms', () => {
    const position = { ms: 5000 };
    const ui = connect(sourceOf({ clock: () => position.ms }));
    deliverRobot();
    vi.advanceTimersByTime(5000);
    expectPose(ui.frame('base_link'), [3, 0, 0], [0, 0, S, S]);
    position.ms = 2000;
    vi.advanceTimersByTime(SCENE_PERIOD_MS);
    expect(ui.frame('odom')).toBeUndefined();
    // base_link is a root now, under nothing placed: the tree keeps only what is static.
    expect(ui.frame('base_link')?.parent).toBeUndefined();
    expect(ui.frame('base_link')?.pose).toBeUndefined();
    expect(ui.frame('laser')).toMatchObject({ parent: 'base_link', static: true });
    ui.feed.close();
  });
});
