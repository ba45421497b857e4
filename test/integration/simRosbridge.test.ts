// The simulated robot's rosbridge server against the client the cockpit uses, roslib 2.x: every
// topic at its configured rate (JSON and CBOR), /cmd_vel drives the robot and the robot stops on its
// own 0.5 s after the last command, services, PNG compression, fragments and throttling.
import * as roslib from 'roslib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';

// roslib 2.1's entry declaration re-exports './src/RosLib' without an extension, which NodeNext
// cannot follow, so it type-checks as an empty module: these are the parts of its API used here.
interface RosConnection {
  connect(url: string): Promise<void>;
  close(): void;
  once(event: 'connection' | 'error', listener: (event: unknown) => void): unknown;
  on<Op>(event: string, listener: (op: Op) => void): unknown;
  callOnConnection(message: object): void;
  getTopics(callback: (result: { topics: string[]; types: string[] }) => void, failed: (error: string) => void): void;
  getTopicType(topic: string, callback: (type: string) => void, failed: (error: string) => void): void;
  getServices(callback: (services: string[]) => void, failed: (error: string) => void): void;
}
interface RoslibTopic<T> {
  subscribe(callback: (message: T) => void): void;
  publish(message: object): void;
}
interface RoslibService<Request, Response> {
  callService(request: Request, callback: (response: Response) => void, failed: (error: string) => void): void;
}
const ROSLIB = roslib as unknown as {
  Ros: new (options: object) => RosConnection;
  Topic: new <T>(options: {
    ros: RosConnection;
    name: string;
    messageType: string;
    compression?: string;
    throttle_rate?: number;
    queue_length?: number;
  }) => RoslibTopic<T>;
  Service: new <Request, Response>(options: { ros: RosConnection; name: string; serviceType: string }) => RoslibService<Request, Response>;
};

interface Header {
  seq: number;
  stamp: { secs: number; nsecs: number };
  frame_id: string;
}
interface Stamped {
  header: Header;
}
interface Received<T> {
  msg: T;
  atMs: number;
}

const CAMERA = { widthPx: 64, heightPx: 48, rateHz: 20 };
const SCAN = { beams: 90, rateHz: 15 };
const IDENTITY = 'identity-token-0123456789';
const TOPICS: ReadonlyArray<{ name: string; type: string; rateHz: number }> = [
  { name: '/camera/image_raw', type: 'sensor_msgs/Image', rateHz: CAMERA.rateHz },
  { name: '/scan', type: 'sensor_msgs/LaserScan', rateHz: SCAN.rateHz },
  { name: '/joint_states', type: 'sensor_msgs/JointState', rateHz: 50 },
  { name: '/imu', type: 'sensor_msgs/Imu', rateHz: 100 },
  { name: '/odom', type: 'nav_msgs/Odometry', rateHz: 50 },
  { name: '/sim/ground_truth', type: 'reins_sim/GroundTruth', rateHz: 30 },
];

let robot: SimRobot;
let server: SimRosbridgeServer;
const openClients: RosConnection[] = [];

beforeAll(async () => {
  robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: CAMERA, scan: SCAN });
  server = await startSimRosbridgeServer({ robot, port: 0, identity: IDENTITY });
});

afterEach(() => {
  for (const ros of openClients.splice(0)) ros.close();
});

afterAll(async () => {
  await server.close();
});

async function connect(): Promise<RosConnection> {
  const ros = new ROSLIB.Ros({});
  openClients.push(ros);
  const connected = new Promise<void>((resolve, reject) => {
    ros.once('connection', () => resolve());
    ros.once('error', reject);
  });
  await ros.connect(server.url);
  await connected;
  return ros;
}

/** Collects a topic's messages with their arrival times; wait for counts with waitFor. */
function collect<T>(ros: RosConnection, name: string, type: string, options: { compression?: string; throttle_rate?: number; queue_length?: number } = {}) {
  const received: Array<Received<T>> = [];
  const waiters: Array<() => void> = [];
  const topic = new ROSLIB.Topic<T>({ ros, name, messageType: type, ...options });
  topic.subscribe((msg) => {
    received.push({ msg, atMs: performance.now() });
    for (const wake of [...waiters]) wake();
  });
  const waitFor = (check: () => boolean, timeoutMs = 5000): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: timed out with ${received.length} messages`)), timeoutMs);
      const wake = () => {
        if (!check()) return;
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(wake), 1);
        resolve();
      };
      waiters.push(wake);
      wake();
    });
  return { received, waitFor, topic };
}

function call<Response>(ros: RosConnection, name: string, args: object): Promise<Response> {
  return new Promise((resolve, reject) => {
    new ROSLIB.Service<object, Response>({ ros, name, serviceType: '' }).callService(args, resolve, (error) => reject(new Error(String(error))));
  });
}

const stampMs = (header: Header) => header.stamp.secs * 1000 + header.stamp.nsecs / 1e6;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe.each(['none', 'cbor'])('every topic with compression %s', (compression) => {
  it('arrives at its configured rate, in sequence, with ROS 1 headers', async () => {
    const ros = await connect();
    const streams = TOPICS.map((topic) => ({ ...topic, ...collect<Stamped>(ros, topic.name, topic.type, { compression }) }));
    await Promise.all(streams.map((stream) => stream.waitFor(() => stream.received.length > 0)));
    const startMs = performance.now();
    // Measure over at least 1.2 s of wall time: the time the 15 Hz scan takes to send 18 more.
    const scan = streams.find((stream) => stream.name === '/scan')!;
    const scanCountAtStart = scan.received.length;
    await scan.waitFor(() => scan.received.length >= scanCountAtStart + 18);
    const endMs = performance.now();

    for (const stream of streams) {
      const inWindow = stream.received.filter((each) => each.atMs > startMs && each.atMs <= endMs);
      const wallRateHz = inWindow.length / ((endMs - startMs) / 1000);
      // Real time, with room for a loaded test machine (a starved simulation skips ahead).
      expect(wallRateHz, `${stream.name} over the wall clock`).toBeGreaterThan(stream.rateHz * 0.5);
      expect(wallRateHz, `${stream.name} over the wall clock`).toBeLessThan(stream.rateHz * 1.5);
      const headers = stream.received.map((each) => each.msg.header);
      // A client that keeps up loses nothing: seq counts up by one.
      expect(
        headers.every((header, index) => index === 0 || header.seq === headers[index - 1]!.seq + 1),
        `${stream.name} seq`,
      ).toBe(true);
      // Stamps are simulated time: the usual gap is the topic's period, to the 10 ms physics step.
      const gapsMs = headers.slice(1).map((header, index) => stampMs(header) - stampMs(headers[index]!));
      expect(Math.abs(median(gapsMs) - 1000 / stream.rateHz), `${stream.name} period by its stamps`).toBeLessThanOrEqual(10.5);
      expect(Number.isInteger(headers[0]!.stamp.secs) && Number.isInteger(headers[0]!.stamp.nsecs)).toBe(true);
      expect(Math.abs(stampMs(headers.at(-1)!) - Date.now())).toBeLessThan(1000);
    }

    const image = streams[0]!.received[0]!.msg as unknown as { width: number; height: number; encoding: string; data: string | Uint8Array };
    expect([image.width, image.height, image.encoding]).toEqual([CAMERA.widthPx, CAMERA.heightPx, 'rgb8']);
    const scanMsg = scan.received[0]!.msg as unknown as { ranges: number[] | Float32Array };
    if (compression === 'cbor') {
      expect(image.data).toBeInstanceOf(Uint8Array);
      expect(scanMsg.ranges).toBeInstanceOf(Float32Array);
    } else {
      expect(Buffer.from(image.data as string, 'base64')).toHaveLength(CAMERA.widthPx * CAMERA.heightPx * 3);
      expect(Array.isArray(scanMsg.ranges)).toBe(true);
    }
    expect(scanMsg.ranges).toHaveLength(SCAN.beams);
  });
});

describe('driving through /cmd_vel', () => {
  interface Odom extends Stamped {
    pose: { pose: { orientation: { z: number; w: number } } };
    twist: { twist: { linear: { x: number }; angular: { z: number } } };
  }

  it('moves the robot while commands come, and the robot stops by itself 0.5 s after the last one', async () => {
    const ros = await connect();
    const odom = collect<Odom>(ros, '/odom', 'nav_msgs/Odometry', { compression: 'cbor' });
    await odom.waitFor(() => odom.received.length > 0);
    const yawOf = (msg: Odom) => 2 * Math.atan2(msg.pose.pose.orientation.z, msg.pose.pose.orientation.w);
    const startYawRad = yawOf(odom.received.at(-1)!.msg);
    const cmdVel = new ROSLIB.Topic({ ros, name: '/cmd_vel', messageType: 'geometry_msgs/Twist' });
    // Turning on the spot: it moves the robot whatever the arena has in front of it.
    const command = { linear: { x: 0, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 1.5 } };
    let lastCommandMs = Date.now();
    cmdVel.publish(command);
    const publisher = setInterval(() => {
      cmdVel.publish(command);
      lastCommandMs = Date.now();
    }, 100);
    try {
      await odom.waitFor(() => yawOf(odom.received.at(-1)!.msg) !== startYawRad && Math.abs(odom.received.at(-1)!.msg.twist.twist.angular.z) > 1.2);
    } finally {
      clearInterval(publisher);
    }
    const stoppedSince = odom.received.length;
    await odom.waitFor(() => odom.received.slice(stoppedSince).some((each) => each.msg.twist.twist.angular.z === 0));
    const firstStopped = odom.received.slice(stoppedSince).find((each) => each.msg.twist.twist.angular.z === 0)!;
    const stillMoving = odom.received.slice(stoppedSince).filter((each) => stampMs(each.msg.header) < lastCommandMs + 400);
    // The robot kept the last command for its 0.5 s timeout, then braked (6 rad/s²: 0.25 s from 1.5 rad/s).
    expect(stillMoving.length).toBeGreaterThan(0);
    expect(stillMoving.every((each) => Math.abs(each.msg.twist.twist.angular.z) > 1)).toBe(true);
    const stopAfterMs = stampMs(firstStopped.msg.header) - lastCommandMs;
    expect(stopAfterMs).toBeGreaterThan(450);
    expect(stopAfterMs).toBeLessThan(1100);
  });
});

describe('services', () => {
  it('answers the rosapi services roslib uses and a missing one as rosbridge_server does', async () => {
    const ros = await connect();
    const topics = await new Promise<{ topics: string[]; types: string[] }>((resolve, reject) => ros.getTopics(resolve, reject));
    expect(topics.topics).toEqual(expect.arrayContaining([...TOPICS.map((topic) => topic.name), '/cmd_vel']));
    expect(topics.types[topics.topics.indexOf('/scan')]).toBe('sensor_msgs/LaserScan');
    expect(await new Promise((resolve, reject) => ros.getTopicType('/odom', resolve, reject))).toBe('nav_msgs/Odometry');
    expect(await new Promise((resolve, reject) => ros.getServices(resolve, reject))).toEqual(
      expect.arrayContaining(['/rosapi/topics', '/sim/reset', '/sim/inject', '/sim/identify']),
    );
    const time = await call<{ time: { secs: number; nsecs: number } }>(ros, '/rosapi/get_time', {});
    expect(Math.abs(time.time.secs * 1000 + time.time.nsecs / 1e6 - Date.now())).toBeLessThan(1000);
    const raw = await call<{ topics: string[]; typedefs_full_text: string[] }>(ros, '/rosapi/topics_and_raw_types', {});
    expect(raw.typedefs_full_text[raw.topics.indexOf('/scan')]).toContain('float32[] ranges');
    await expect(call(ros, '/no_such_service', {})).rejects.toThrow('Service /no_such_service does not exist');
  });

  it('identifies itself with the token it was started with', async () => {
    const ros = await connect();
    expect(await call(ros, '/sim/identify', {})).toEqual({ identity: IDENTITY, robot_name: 'reins-sim' });
  });

  it('resets the episode by seed, and refuses a bad seed', async () => {
    const ros = await connect();
    expect(await call(ros, '/sim/reset', { seed: 42 })).toEqual({ episode_seed: 42 });
    expect(robot.episodeState().seed).toBe(42);
    expect(await call(ros, '/sim/reset', {})).toEqual({ episode_seed: 43 });
    await expect(call(ros, '/sim/reset', { seed: -1 })).rejects.toThrow(/seed/);
  });

  it('injects an event into the robot, and refuses a malformed one', async () => {
    const ros = await connect();
    const truth = collect<{ linear_mps: number }>(ros, '/sim/ground_truth', 'reins_sim/GroundTruth');
    await truth.waitFor(() => truth.received.length > 0);
    expect(await call(ros, '/sim/inject', { kind: 'shove', forwardMps: 1, leftwardMps: 0 })).toEqual({ injected: 'shove' });
    await truth.waitFor(() => truth.received.some((each) => Math.abs(each.msg.linear_mps) > 0.1));
    await expect(call(ros, '/sim/inject', { kind: 'shove', forwardMps: 'hard' })).rejects.toThrow(/forwardMps/);
  });
});

describe('subscription options', () => {
  it('packs messages into PNGs for compression png, which roslib unpacks', async () => {
    const ros = await connect();
    const images = collect<{ width: number; data: string }>(ros, '/camera/image_raw', 'sensor_msgs/Image', { compression: 'png' });
    await images.waitFor(() => images.received.length >= 2);
    expect(Buffer.from(images.received[0]!.msg.data, 'base64')).toHaveLength(CAMERA.widthPx * CAMERA.heightPx * 3);
  });

  it('sends a message larger than fragment_size as fragments, which roslib reassembles', async () => {
    const ros = await connect();
    const images: Array<{ msg: { header: Header; data: string } }> = [];
    const done = new Promise<void>((resolve) =>
      ros.on('/camera/image_raw', (op: { msg: { header: Header; data: string } }) => {
        images.push(op);
        if (images.length === 3) resolve();
      }),
    );
    ros.callOnConnection({ op: 'subscribe', id: 'fragmented', topic: '/camera/image_raw', type: 'sensor_msgs/Image', fragment_size: 1000 });
    await done;
    expect(images.map((op) => Buffer.from(op.msg.data, 'base64').length)).toEqual([9216, 9216, 9216]);
  });

  it('sends at most one message per throttle_rate', async () => {
    const ros = await connect();
    const imu = collect<Stamped>(ros, '/imu', 'sensor_msgs/Imu', { throttle_rate: 250, queue_length: 1 });
    await imu.waitFor(() => imu.received.length >= 6);
    const arrivalGapsMs = imu.received.slice(1).map((each, index) => each.atMs - imu.received[index]!.atMs);
    const stampGapsMs = imu.received.slice(1).map((each, index) => stampMs(each.msg.header) - stampMs(imu.received[index]!.msg.header));
    // IMU at 100 Hz, sent every 250 ms: each message is the newest, so stamps are ~250 ms apart too.
    expect(Math.min(...arrivalGapsMs)).toBeGreaterThan(200);
    expect(Math.min(...stampGapsMs)).toBeGreaterThan(200);
    expect(Math.max(...stampGapsMs)).toBeLessThan(400);
  });
});
