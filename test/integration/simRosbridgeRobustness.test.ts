// The simulated robot's rosbridge server under bad and demanding clients: every malformed request
// gets a `status` error and the server keeps serving; huge and incomplete messages; fragments in;
// per-subscription settings; a slow client that must lose messages instead of growing a queue;
// many clients at once.
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fragmentText } from '../../main/sim/rosbridge/fragments.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { SimRosbridgeClient, type ReceivedFrame } from '../support/simRosbridgeClient.ts';

const FRAGMENT_TIMEOUT_MS = 300;
const TWIST = 'geometry_msgs/Twist';

let server: SimRosbridgeServer;
const clients: SimRosbridgeClient[] = [];

beforeAll(async () => {
  server = await startSimRosbridgeServer({ robot: new SimRobot({ camera: { widthPx: 32, heightPx: 24 } }), port: 0, fragmentTimeoutMs: FRAGMENT_TIMEOUT_MS });
});

afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

afterAll(async () => {
  await server.close();
});

async function connect(url = server.url): Promise<SimRosbridgeClient> {
  const client = await SimRosbridgeClient.open(url);
  clients.push(client);
  return client;
}

const isStatus = (frame: ReceivedFrame) => frame.op.op === 'status';

/** The server still answers this client: a service call round trip. */
async function expectServing(client: SimRosbridgeClient): Promise<void> {
  const response = await client.call('/rosapi/get_time', {});
  expect(response.result).toBe(true);
}

describe('malformed requests', () => {
  const cases: ReadonlyArray<[string, (client: SimRosbridgeClient) => void, RegExp]> = [
    ['bad JSON', (client) => client.send('{"op":"subscribe",'), /not valid JSON/],
    ['a message that is not an object', (client) => client.send('[1,2,3]'), /JSON object/],
    ['an unknown op', (client) => client.send({ op: 'nope', id: 'x1' }), /unknown op "nope"/],
    ['an op the robot does not serve', (client) => client.send({ op: 'advertise_service', id: 'x1', service: '/mine', type: 'std_srvs/Empty' }), /not served/],
    ['a wrong field type', (client) => client.send({ op: 'subscribe', id: 'x1', topic: 123 }), /topic/],
    ['a negative throttle_rate', (client) => client.send({ op: 'subscribe', id: 'x1', topic: '/scan', throttle_rate: -5 }), /throttle_rate/],
    ['a subscribe to an unknown topic', (client) => client.send({ op: 'subscribe', id: 'x1', topic: '/no/such/topic' }), /unknown topic \/no\/such\/topic/],
    [
      'a subscribe with the wrong type for a known topic',
      (client) => client.send({ op: 'subscribe', id: 'x1', topic: '/scan', type: 'sensor_msgs/Image' }),
      /sensor_msgs\/LaserScan/,
    ],
    ['a compression this robot does not serve', (client) => client.send({ op: 'subscribe', id: 'x1', topic: '/scan', compression: 'cbor-raw' }), /cbor-raw/],
    ['an unsubscribe from an unknown topic', (client) => client.send({ op: 'unsubscribe', id: 'x1', topic: '/nope' }), /unknown topic/],
    [
      'a publish to /cmd_vel without advertising it',
      (client) => client.send({ op: 'publish', id: 'x1', topic: '/cmd_vel', msg: { linear: { x: 0.1 } } }),
      /advertis/,
    ],
    [
      'a publish of a malformed Twist',
      (client) => {
        client.send({ op: 'advertise', id: 'adv', topic: '/cmd_vel', type: TWIST });
        client.send({ op: 'publish', id: 'x1', topic: '/cmd_vel', msg: { linear: 'fast' } });
      },
      /geometry_msgs\/Twist/,
    ],
    ['a publish to a topic the robot publishes', (client) => client.send({ op: 'publish', id: 'x1', topic: '/scan', msg: {} }), /robot publishes it/],
    ['a publish to an unknown topic', (client) => client.send({ op: 'publish', id: 'x1', topic: '/chatter', msg: { data: 'hi' } }), /unknown topic/],
    [
      'an advertise of /cmd_vel with the wrong type',
      (client) => client.send({ op: 'advertise', id: 'x1', topic: '/cmd_vel', type: 'std_msgs/String' }),
      /geometry_msgs\/Twist/,
    ],
    [
      'a call_service with args that are not an object',
      (client) => client.send({ op: 'call_service', id: 'x1', service: '/sim/reset', args: 'seed=4' }),
      /args/,
    ],
    [
      'a fragment whose pieces disagree on total',
      (client) => {
        client.send({ op: 'fragment', id: 'x1', data: '{"op":', num: 0, total: 3 });
        client.send({ op: 'fragment', id: 'x1', data: '"nope"}', num: 1, total: 2 });
      },
      /disagree/,
    ],
  ];

  it.each(cases)('%s gets a status error, and the client is still served', async (_name, send, reason) => {
    const client = await connect();
    send(client);
    const status = await client.waitFor(isStatus, 5000, 'a status reply');
    expect(status.op).toMatchObject({ op: 'status', level: 'error', msg: expect.stringMatching(reason) });
    expect(Object.keys(status.op).slice(0, 3)).toEqual(['op', 'level', 'msg']);
    await expectServing(client);
  });

  it('echoes the id of the request it refuses', async () => {
    const client = await connect();
    client.send({ op: 'subscribe', id: 'mine-42', topic: '/nowhere' });
    expect((await client.statusFor('mine-42')).msg).toMatch(/unknown topic/);
  });

  it('refuses a binary frame', async () => {
    const client = await connect();
    client.socket.send(Buffer.from([0xa1, 0x62, 0x6f, 0x70]), { binary: true });
    expect((await client.waitFor(isStatus)).op.msg).toMatch(/binary frames/);
    await expectServing(client);
  });

  it('refuses a message over the 10 MB limit with a status, and one over the frame limit by closing (1009)', async () => {
    const client = await connect();
    client.send({ op: 'publish', id: 'huge', topic: '/cmd_vel', msg: { data: 'x'.repeat(11 * 1024 * 1024) } });
    expect((await client.statusFor('huge')).msg).toMatch(/exceeds the 10485760-byte limit/);
    await expectServing(client);

    const greedy = await connect();
    greedy.send('x'.repeat(21 * 1024 * 1024));
    expect((await greedy.closed).code).toBe(1009);
    await expectServing(client);
  });

  it('drops a fragmented message that never completes, with a status after the timeout', async () => {
    const client = await connect();
    const startMs = performance.now();
    client.send({ op: 'fragment', id: 'never', data: '{"op":"call_se', num: 0, total: 3 });
    const status = await client.statusFor('never', 5000);
    expect(status.msg).toMatch(/never completed: 1 of 3 pieces/);
    expect(performance.now() - startMs).toBeGreaterThanOrEqual(FRAGMENT_TIMEOUT_MS - 5);
    await expectServing(client);
  });

  it('refuses a fragmented message larger than the limit', async () => {
    const client = await connect();
    const piece = 'x'.repeat(6 * 1024 * 1024);
    client.send({ op: 'fragment', id: 'big', data: piece, num: 0, total: 2 });
    client.send({ op: 'fragment', id: 'big', data: piece, num: 1, total: 2 });
    expect((await client.statusFor('big')).msg).toMatch(/larger than the 10485760-byte limit/);
    await expectServing(client);
  });

  it('sends no status after set_level none', async () => {
    const client = await connect();
    client.send({ op: 'set_level', level: 'none' });
    client.send({ op: 'nope', id: 'quiet' });
    // Ops are handled in order: had the bad one been answered, its status would come first.
    await expectServing(client);
    expect(client.frames.filter(isStatus)).toEqual([]);
  });
});

describe('replies shaped like rosbridge_server', () => {
  const fixtureKeys = (name: string): string[] => {
    const lines = readFileSync(new URL(`../fixtures/rosbridge-ros1/${name}.jsonl`, import.meta.url), 'utf8')
      .trim()
      .split('\n');
    const frame = lines.map((line) => JSON.parse(line) as { dir: string; data: string }).find((each) => each.dir === 'server')!;
    return Object.keys(JSON.parse(frame.data) as object);
  };

  it('answers service calls with the fields and order of the fixtures, failures with result false', async () => {
    const client = await connect();
    const missing = await client.call('/no_such_service', {}, 'call:missing');
    expect(missing).toEqual({
      op: 'service_response',
      service: '/no_such_service',
      values: 'Service /no_such_service does not exist',
      result: false,
      id: 'call:missing',
    });
    expect(Object.keys(missing)).toEqual(fixtureKeys('service-missing'));
    const type = await client.call('/rosapi/topic_type', { topic: '/scan' }, 'call:type');
    expect(type).toEqual({ op: 'service_response', service: '/rosapi/topic_type', values: { type: 'sensor_msgs/LaserScan' }, result: true, id: 'call:type' });
    expect(Object.keys(type)).toEqual(fixtureKeys('rosapi-topic-type'));
  });
});

describe('fragments in', () => {
  it('reassembles a fragmented publish, in any order, and the robot takes the command', async () => {
    const client = await connect();
    client.send({ op: 'subscribe', id: 'watch', topic: '/cmd_vel', type: TWIST });
    client.send({ op: 'advertise', id: 'adv', topic: '/cmd_vel', type: TWIST });
    const publish = JSON.stringify({ op: 'publish', id: 'pub', topic: '/cmd_vel', msg: { linear: { x: 0.25 }, angular: { z: 0.5 } } });
    const fragments = fragmentText(publish, 16, 'frag-pub');
    for (const fragment of fragments.reverse()) client.send(fragment);
    const relayed = await client.waitFor((frame) => frame.op.op === 'publish' && frame.op.topic === '/cmd_vel');
    expect(relayed.op.msg).toEqual({ linear: { x: 0.25, y: 0, z: 0 }, angular: { x: 0, y: 0, z: 0.5 } });
  });

  it('understands fragments the way rosbridge_server writes them (id 0, a float total)', async () => {
    const client = await connect();
    const call = JSON.stringify({ op: 'call_service', id: 'via-fragments', service: '/rosapi/topic_type', args: { topic: '/imu' } });
    const size = Math.ceil(call.length / 3);
    for (let num = 0; num < 3; num++) {
      client.send({ op: 'fragment', id: 0, data: call.slice(num * size, (num + 1) * size), num, total: (call.length - 1) / size + 1 });
    }
    const response = await client.waitFor((frame) => frame.op.id === 'via-fragments');
    expect(response.op.values).toEqual({ type: 'sensor_msgs/Imu' });
  });
});

describe('subscriptions', () => {
  it('keep their own throttle and compression per id, and unsubscribe by id or all at once', async () => {
    const client = await connect();
    client.send({ op: 'subscribe', id: 'fast', topic: '/imu', type: 'sensor_msgs/Imu' });
    client.send({ op: 'subscribe', id: 'slow', topic: '/imu', type: 'sensor_msgs/Imu', compression: 'cbor', throttle_rate: 400 });
    const imuFrames = (binary: boolean) => client.published('/imu').filter((frame) => frame.binary === binary);
    await client.waitFor(() => imuFrames(false).length >= 100, 5000, '100 JSON IMU messages');
    const json = imuFrames(false);
    const cbor = imuFrames(true);
    // About one second at 100 Hz unthrottled, against one message per 400 ms.
    expect(cbor.length).toBeGreaterThanOrEqual(2);
    expect(cbor.length).toBeLessThanOrEqual(Math.ceil((json.at(-1)!.atMs - json[0]!.atMs) / 400) + 1);

    client.send({ op: 'unsubscribe', id: 'fast', topic: '/imu' });
    await expectServing(client);
    const afterFastGone = client.frames.length;
    const binaryCountThen = imuFrames(true).length;
    await client.waitFor(() => imuFrames(true).length >= binaryCountThen + 2, 5000, 'two more CBOR IMU messages');
    expect(client.frames.slice(afterFastGone).filter((frame) => frame.op.topic === '/imu' && !frame.binary)).toEqual([]);

    client.send({ op: 'unsubscribe', topic: '/imu' });
    await expectServing(client);
    const afterAllGone = client.frames.length;
    // Let the robot publish a good while (another client's 30 IMU messages) before looking.
    const witness = await connect();
    witness.send({ op: 'subscribe', id: 'witness', topic: '/imu' });
    await witness.waitForPublished('/imu', 60);
    expect(client.frames.slice(afterAllGone).filter((frame) => frame.op.topic === '/imu')).toEqual([]);
  });

  it('serve many clients at once', async () => {
    const many = await Promise.all(Array.from({ length: 20 }, () => connect()));
    many.forEach((client, index) => client.send({ op: 'subscribe', id: `imu-${index}`, topic: '/imu', compression: index % 2 === 0 ? 'cbor' : 'none' }));
    await Promise.all(many.map((client) => client.waitForPublished('/imu', 30)));
    expect(server.stats().clients.filter((client) => client.subscriptions > 0).length).toBeGreaterThanOrEqual(20);
  });
});

describe('a slow client', () => {
  let bigCameraServer: SimRosbridgeServer;

  beforeAll(async () => {
    const robot = new SimRobot({ camera: { widthPx: 320, heightPx: 240, rateHz: 30 } });
    bigCameraServer = await startSimRosbridgeServer({ robot, port: 0 });
  });

  afterAll(async () => {
    await bigCameraServer.close();
  });

  it('loses old messages instead of growing a queue, and other clients keep their rate', async () => {
    const slow = await connect(bigCameraServer.url);
    const fast = await connect(bigCameraServer.url);
    slow.send({ op: 'subscribe', id: 'cam', topic: '/camera/image_raw' });
    slow.send({ op: 'subscribe', id: 'imu', topic: '/imu' });
    fast.send({ op: 'subscribe', id: 'cam', topic: '/camera/image_raw', compression: 'cbor' });
    await slow.waitForPublished('/camera/image_raw', 1);
    await fast.waitForPublished('/camera/image_raw', 1);
    slow.socket.pause();

    const seqOf = (frame: ReceivedFrame) => (frame.op.msg as { header: { seq: number } }).header.seq;
    const slowStats = () => bigCameraServer.stats().clients.find((client) => client.subscriptions === 2)!;
    const fastCount = fast.published('/camera/image_raw').length;
    const startMs = performance.now();
    await fast.waitForPublished('/camera/image_raw', fastCount + 20, 10_000);
    const early = slowStats();
    await fast.waitForPublished('/camera/image_raw', fastCount + 45, 10_000);
    const late = slowStats();
    const elapsedSecs = (performance.now() - startMs) / 1000;

    // 320 × 240 rgb8 as JSON is 0.3 MB a frame, 9 MB/s: without a bound this backlog would grow by
    // more than 10 MB. It holds the newest frame (and a little IMU) and what the socket already took.
    const boundBytes = 2 * 1024 * 1024 + 0.5 * 1024 * 1024;
    for (const stats of [early, late]) {
      expect(stats.bufferedBytes).toBeLessThan(boundBytes);
      expect(stats.queuedMessages).toBeLessThanOrEqual(1 + 20);
    }
    expect(late.droppedMessages).toBeGreaterThan(early.droppedMessages);
    // The other client lost nothing meanwhile, at about the camera's rate.
    const fastSeqs = fast.published('/camera/image_raw').map(seqOf);
    expect(fastSeqs.every((seq, index) => index === 0 || seq === fastSeqs[index - 1]! + 1)).toBe(true);
    expect(45 / elapsedSecs).toBeGreaterThan(30 * 0.5);

    // Once it reads again it gets fresh frames, having lost those in between: not the backlog.
    const freshSeq = seqOf(fast.published('/camera/image_raw').at(-1)!);
    slow.socket.resume();
    await slow.waitFor((frame) => frame.op.topic === '/camera/image_raw' && seqOf(frame) >= freshSeq, 10_000, 'a fresh camera frame');
    const slowSeqs = slow.published('/camera/image_raw').map(seqOf);
    const neverSent = slowSeqs.at(-1)! - slowSeqs[0]! + 1 - slowSeqs.length;
    expect(neverSent).toBeGreaterThan(0);
  });
});
