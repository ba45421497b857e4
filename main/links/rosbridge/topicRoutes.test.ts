import { describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../../core/link.ts';
import { DEFAULT_ROLE_TYPES, TopicRoutes } from './topicRoutes.ts';

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
    expect(table.route('/chatter')).toMatchObject({ ok: false, alert: { message: expect.stringContaining('does not decode') } });
    expect(table.route('/nowhere')).toMatchObject({ ok: false, alert: { key: 'topic:/nowhere', message: expect.stringContaining('not offered') } });
    expect(table.offered()).toEqual([
      { topic: '/scan', kind: 'LaserScan', type: 'sensor_msgs/msg/LaserScan' },
      { topic: '/camera/image_raw/compressed', kind: 'Image', type: 'sensor_msgs/CompressedImage' },
      { topic: '/joint_states', kind: 'JointState', type: 'sensor_msgs/JointState' },
    ]);
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
