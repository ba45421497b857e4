// Bad input from a ROS 2 rosbridge server: a definition in /rosapi/topics_and_raw_types that does not
// parse, and cbor-raw bytes that do not match their definition. Each gets a clear alert, and the rest of
// the link keeps working: the topic with the broken definition comes as CBOR instead, the next good
// message on the other topic is delivered, and the JSON topics never stop.
import { parse } from '@foxglove/rosmsg';
import { MessageWriter } from '@foxglove/rosmsg2-serialization';
import { Encoder } from 'cbor-x';
import { afterEach, expect, it } from 'vitest';
import type { Image, LaserScan, Odometry } from '../../main/core/messages.ts';
import { fullRos2MessageDefinition } from '../../main/core/rosMessageDefinitions.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { FakeRosbridgeServer } from '../fakes/fakeRosbridgeServer.ts';
import { waitForAlert } from '../support/linkEvents.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const cbor = new Encoder({ tagUint8Array: false, useRecords: false, variableMapSize: true });
/** Topics the test publishes by hand: their timers never fire during a test. */
const BY_HAND = 1e-6;
const TYPES = { camera: 'sensor_msgs/msg/Image', scan: 'sensor_msgs/msg/LaserScan', odom: 'nav_msgs/msg/Odometry' };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scanCdr(ranges: number[]): Uint8Array {
  return new MessageWriter(parse(fullRos2MessageDefinition(TYPES.scan), { ros2: true })).writeMessage({
    header: { stamp: { sec: Math.floor(Date.now() / 1000), nanosec: 0 }, frame_id: 'laser' },
    angle_min: -1,
    angle_max: 1,
    angle_increment: 2 / (ranges.length - 1),
    time_increment: 0,
    scan_time: 0.1,
    range_min: 0.1,
    range_max: 10,
    ranges: Float32Array.from(ranges),
    intensities: new Float32Array(0),
  });
}

it('says what is wrong with a definition that does not parse and with bytes that do not match theirs, and keeps the rest working', async () => {
  const server = await FakeRosbridgeServer.start({
    ros2Stamps: true,
    topics: {
      '/camera/image_raw': { type: TYPES.camera, rateHz: BY_HAND, message: () => ({}) },
      '/scan': { type: TYPES.scan, rateHz: BY_HAND, message: () => ({}) },
      '/odom': {
        type: TYPES.odom,
        rateHz: 20,
        message: () => ({
          child_frame_id: 'base_link',
          pose: { pose: { position: { x: 1, y: 2, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } }, covariance: [] },
          twist: { twist: { linear: { x: 0.1, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0 } }, covariance: [] },
        }),
      },
    },
    services: {
      '/rosapi/topics_and_raw_types': () => ({
        topics: ['/camera/image_raw', '/scan', '/odom'],
        types: [TYPES.camera, TYPES.scan, TYPES.odom],
        typedefs_full_text: [
          'std_msgs/Header header\nuint32 height\nuint8[ data',
          fullRos2MessageDefinition(TYPES.scan),
          fullRos2MessageDefinition(TYPES.odom),
        ],
      }),
    },
  });
  cleanups.push(() => server.close());
  const link = new RosbridgeLink({ url: server.url, timings: { serviceTimeoutMs: 1000 } });
  cleanups.push(() => link.close());
  const images = new WaitableLog<Image>('/camera/image_raw');
  const scans = new WaitableLog<LaserScan>('/scan');
  const odom = new WaitableLog<Odometry>('/odom');
  cleanups.push(link.subscribe<Image>('/camera/image_raw', (received) => images.push(received.msg)));
  cleanups.push(link.subscribe<LaserScan>('/scan', (received) => scans.push(received.msg)));
  cleanups.push(link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg)));

  // The broken definition: said in words, and the camera asked for as CBOR instead of cbor-raw.
  const schemaAlert = await waitForAlert(link, (alert) => alert.key === 'schema:/camera/image_raw');
  expect(schemaAlert).toMatchObject({
    severity: 'warn',
    message: expect.stringMatching(/cannot come as cbor-raw: .*sensor_msgs\/msg\/Image does not parse.*receiving it as CBOR instead/),
  });
  const compressionOf = (topic: string) => server.framesOf('subscribe', topic).at(-1)?.message['compression'];
  await server.waitFor(() => compressionOf('/scan') === 'cbor-raw' && compressionOf('/camera/image_raw') === 'cbor', 'the subscriptions');

  // Bytes that do not match the scan's definition: dropped with the reason; the next good one is delivered.
  server.sendToAll(cbor.encode({ op: 'publish', topic: '/scan', msg: { secs: 1, nsecs: 0, bytes: scanCdr([1, 2, 3]).subarray(0, 40) } }));
  const decodeAlert = await waitForAlert(link, (alert) => alert.key === 'decode:/scan');
  expect(decodeAlert.message).toMatch(/Dropped a message on \/scan: 40 bytes of CDR do not match the robot's definition of sensor_msgs\/msg\/LaserScan/);
  expect(decodeAlert.hint).toMatch(/definition/);
  server.sendToAll(cbor.encode({ op: 'publish', topic: '/scan', msg: { secs: 1, nsecs: 0, bytes: scanCdr([1, 2, 3]) } }));
  await scans.until((items) => items.length === 1, 'the good scan after the bad one');
  expect([...scans.items[0]!.rangesM]).toEqual([1, 2, 3]);

  // The camera, as CBOR, still arrives; and odometry (JSON) never stopped.
  const stamp = { sec: Math.floor(Date.now() / 1000), nanosec: 0 };
  server.publishNow('/camera/image_raw', {
    header: { stamp, frame_id: 'camera' },
    height: 1,
    width: 2,
    encoding: 'mono8',
    is_bigendian: 0,
    step: 2,
    data: new Uint8Array([7, 9]),
  });
  await images.until((items) => items.length === 1, 'the camera over CBOR');
  expect([...images.items[0]!.data]).toEqual([7, 9]);
  const odomBefore = odom.items.length;
  await odom.until((items) => items.length > odomBefore + 2, 'odometry still arriving');
  expect(link.presence()).toBe('present');
}, 20_000);
