import { describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { fullRos2MessageDefinition } from '../../core/rosMessageDefinitions.ts';
import { DEFAULT_ROLE_TYPES, isSimulatorBackChannel, TopicRoutes } from './topicRoutes.ts';

function routes(compression: Record<string, 'cbor' | 'none'> = {}): TopicRoutes {
  return new TopicRoutes({ topicMap: { ...DEFAULT_TOPIC_MAP, camera: '/camera/image_raw/compressed' }, roleTypes: DEFAULT_ROLE_TYPES, compression });
}

describe('TopicRoutes', () => {
  it("waits for discovery, then routes by the discovered type, delivering a role's kind", () => {
    const table = routes();
    expect(table.route('/scan')).toEqual({ ok: false, wait: true });
    table.setDiscovered(
      new Map([
        ['/scan', 'sensor_msgs/msg/LaserScan'],
        ['/camera/image_raw/compressed', 'sensor_msgs/CompressedImage'],
        ['/joint_states', 'sensor_msgs/JointState'],
        ['/chatter', 'std_msgs/String'],
      ]),
    );
    expect(table.route('/scan')).toMatchObject({ ok: true, route: { rosType: 'sensor_msgs/msg/LaserScan', kind: 'LaserScan', compression: 'cbor' } });
    expect(table.route('/camera/image_raw/compressed')).toMatchObject({ ok: true, route: { kind: 'Image', compression: 'cbor' } });
    expect(table.route('/joint_states')).toMatchObject({ ok: true, route: { compression: 'none' } });
    expect(table.route('/chatter')).toMatchObject({ ok: true, route: { rosType: 'std_msgs/String', kind: 'RosFields', compression: 'none' } });
    expect(table.route('/nowhere')).toMatchObject({ ok: false, alert: { key: 'topic:/nowhere', message: expect.stringContaining('not offered') } });
    expect(table.offered()).toEqual([
      { topic: '/scan', kind: 'LaserScan', type: 'sensor_msgs/msg/LaserScan' },
      { topic: '/camera/image_raw/compressed', kind: 'Image', type: 'sensor_msgs/CompressedImage' },
      { topic: '/joint_states', kind: 'JointState', type: 'sensor_msgs/JointState' },
      { topic: '/chatter', kind: 'RosFields', type: 'std_msgs/String' },
    ]);
  });

  it('sends no command before rosapi names its type (a publish in a guessed type would advertise it), unless the user named the type', () => {
    const table = routes();
    expect(table.commandRoute('/cmd_vel')).toMatchObject({
      ok: false,
      alert: { key: 'command-type:/cmd_vel', severity: 'warn', message: expect.stringContaining('not known yet') },
    });
    table.setDiscovered(new Map([['/cmd_vel', 'geometry_msgs/msg/TwistStamped']]));
    expect(table.commandRoute('/cmd_vel')).toEqual({ ok: true, rosType: 'geometry_msgs/msg/TwistStamped', shape: 'TwistStamped' });
    const named = new TopicRoutes({ topicMap: DEFAULT_TOPIC_MAP, roleTypes: DEFAULT_ROLE_TYPES, compression: {}, commandTypeGiven: true });
    expect(named.commandRoute('/cmd_vel')).toEqual({ ok: true, rosType: 'geometry_msgs/Twist', shape: 'Twist' });
  });

  it('routes a topic of any other type as RosFields, maps as CBOR, its fields and header stamp as sent', () => {
    const table = routes();
    table.setDiscovered(
      new Map([
        ['/tf', 'tf2_msgs/TFMessage'],
        ['/map', 'nav_msgs/OccupancyGrid'],
        ['/robot_description', 'std_msgs/String'],
      ]),
    );
    expect(table.route('/tf')).toMatchObject({ ok: true, route: { kind: 'RosFields', rosType: 'tf2_msgs/TFMessage', compression: 'none' } });
    expect(table.route('/map')).toMatchObject({ ok: true, route: { kind: 'RosFields', compression: 'cbor' } });
    const outcome = table.route('/map');
    if (!outcome.ok) throw new Error('no route');
    const map = { header: { seq: 1, stamp: { secs: 1_700_000_000, nsecs: 500_000_000 }, frame_id: 'map' }, data: new Int8Array([0, 100, -1]) };
    expect(outcome.route.decode(map)).toEqual({
      ok: true,
      msg: { kind: 'RosFields', rosType: 'nav_msgs/OccupancyGrid', fields: map },
      stampMs: 1_700_000_000_500,
    });
    // A message without a header (TFMessage stamps each transform) is delivered unstamped.
    expect(outcome.route.decode({ transforms: [] })).toMatchObject({ ok: true, stampMs: undefined });
    expect(outcome.route.decode('text')).toMatchObject({ ok: false, problem: expect.stringContaining('expected an object') });
  });

  it("never offers a simulated robot's back channel (its ground truth), though it routes it when asked by name", () => {
    const table = new TopicRoutes({ topicMap: DEFAULT_TOPIC_MAP, roleTypes: DEFAULT_ROLE_TYPES, compression: {}, unlisted: isSimulatorBackChannel });
    table.setDiscovered(
      new Map([
        ['/tf', 'tf2_msgs/TFMessage'],
        ['/sim/ground_truth', 'reins_sim/GroundTruth'],
      ]),
    );
    expect(table.offered()).toEqual([{ topic: '/tf', kind: 'RosFields', type: 'tf2_msgs/TFMessage' }]);
    expect(table.route('/sim/ground_truth')).toMatchObject({ ok: true, route: { kind: 'RosFields' } });
  });

  it('keeps refusing a role topic of a type with no kind of its own, and a topic rosapi lists without a type', () => {
    const table = routes();
    table.setDiscovered(
      new Map([
        ['/scan', 'std_msgs/String'],
        ['/ghost', ''],
      ]),
    );
    expect(table.route('/scan')).toMatchObject({ ok: false, alert: { message: expect.stringContaining('the scan role needs LaserScan') } });
    expect(table.route('/ghost')).toMatchObject({ ok: false, alert: { key: 'topic:/ghost', message: expect.stringContaining('has no type') } });
    expect(table.offered()).toEqual([]);
  });

  it('refuses a role topic of the wrong type with a hint about the topic map', () => {
    const table = routes();
    table.setDiscovered(new Map([['/imu', 'sensor_msgs/LaserScan']]));
    expect(table.route('/imu')).toMatchObject({
      ok: false,
      alert: { message: expect.stringContaining('the imu role needs Imu'), hint: expect.stringContaining('topic map') },
    });
  });

  it("uses the topic map's types where rosapi is missing", () => {
    const table = routes();
    table.setDiscoveryFailed();
    expect(table.route('/odom')).toMatchObject({ ok: true, route: { rosType: 'nav_msgs/Odometry', compression: 'none' } });
    expect(table.route('/other')).toMatchObject({ ok: false, wait: false });
    expect(table.offered().map((info) => info.topic)).toEqual(['/camera/image_raw/compressed', '/scan', '/joint_states', '/imu', '/odom']);
  });

  it('honours configured compression until a topic is found silent over CBOR', () => {
    const table = routes({ '/joint_states': 'cbor', '/scan': 'none' });
    table.setDiscoveryFailed();
    expect(table.route('/joint_states')).toMatchObject({ ok: true, route: { compression: 'cbor' } });
    expect(table.route('/scan')).toMatchObject({ ok: true, route: { compression: 'none' } });
    table.preferJson('/joint_states');
    expect(table.route('/joint_states')).toMatchObject({ ok: true, route: { compression: 'none' } });
  });
});

describe('TopicRoutes on a ROS 2 robot', () => {
  const ROS2_TOPICS = new Map([
    ['/camera/image_raw', 'sensor_msgs/msg/Image'],
    ['/scan', 'sensor_msgs/msg/LaserScan'],
    ['/odom', 'nav_msgs/msg/Odometry'],
  ]);

  it('asks for the definitions of RosFields types too, so that a recording keeps them as CDR', () => {
    const table = routes();
    table.setDiscovered(new Map([['/tf', 'tf2_msgs/msg/TFMessage']]));
    expect(table.wantsDefinitions()).toBe(true);
    table.setDefinitions(new Map([['tf2_msgs/msg/TFMessage', 'geometry_msgs/TransformStamped[] transforms\n']]));
    expect(table.wantsDefinitions()).toBe(false);
    expect(table.route('/tf')).toMatchObject({
      ok: true,
      route: {
        kind: 'RosFields',
        compression: 'none',
        ros2: { rosType: 'tf2_msgs/msg/TFMessage', definitionText: 'geometry_msgs/TransformStamped[] transforms\n' },
      },
    });
  });

  it('asks for definitions, then takes bulky types as cbor-raw and the rest as JSON', () => {
    const table = routes();
    table.setDiscovered(ROS2_TOPICS);
    expect(table.rosVersion()).toBe(2);
    expect(table.wantsDefinitions()).toBe(true);
    expect(table.route('/scan')).toMatchObject({ ok: true, route: { compression: 'cbor' } });
    table.setDefinitions(new Map([...ROS2_TOPICS.values()].map((type) => [type, fullRos2MessageDefinition(type)])));
    expect(table.wantsDefinitions()).toBe(false);
    expect(table.route('/scan')).toMatchObject({ ok: true, route: { compression: 'cbor-raw', ros2: { rosType: 'sensor_msgs/msg/LaserScan' } } });
    expect(table.route('/camera/image_raw')).toMatchObject({ ok: true, route: { compression: 'cbor-raw' } });
    expect(table.route('/odom')).toMatchObject({ ok: true, route: { compression: 'none', ros2: { rosType: 'nav_msgs/msg/Odometry' } } });
  });

  it('falls back to CBOR, with a notice saying why, where the definition does not parse', () => {
    const table = routes();
    table.setDiscovered(ROS2_TOPICS);
    table.setDefinitions(new Map([['sensor_msgs/msg/LaserScan', 'float32[ ranges']]));
    expect(table.route('/scan')).toMatchObject({
      ok: true,
      route: { compression: 'cbor' },
      notice: { key: 'schema:/scan', message: expect.stringContaining('does not parse') },
    });
  });

  it('keeps a ROS 1 robot on CBOR, and an unreadable rosapi on CBOR without asking again', () => {
    const ros1 = routes();
    ros1.setDiscovered(new Map([['/scan', 'sensor_msgs/LaserScan']]));
    expect([ros1.rosVersion(), ros1.wantsDefinitions()]).toEqual([1, false]);
    expect(ros1.route('/scan')).toMatchObject({ ok: true, route: { compression: 'cbor' } });
    expect(ros1.route('/scan')).toMatchObject({ route: { ros2: undefined } });

    const ros2 = routes();
    ros2.setDiscovered(ROS2_TOPICS);
    ros2.setDefinitions(undefined);
    expect(ros2.wantsDefinitions()).toBe(false);
    expect(ros2.route('/scan')).toMatchObject({ ok: true, route: { compression: 'cbor' } });
  });
});
