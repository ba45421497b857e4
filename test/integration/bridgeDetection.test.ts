// A robot given as a plain ws:// (or wss://) address is reached with the link its bridge needs: the
// WebSocket handshake offering the foxglove subprotocols is taken by foxglove_bridge (3.x's
// foxglove.sdk.v1, or the old name) and not by rosbridge, which selects none. Against the simulated
// robot served both ways (`reins sim --foxglove-port`), through openRobot (`--robot`, probe, record),
// the Connect-robot dialog's connection manager and `reins probe` itself.
// Then wss:// robots whose certificate comes from a CA of their own (made here with openssl): each
// link fails without `--ca` with a hint that names it, and connects with it.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RobotConnections } from '../../main/api/robotConnections.ts';
import type { Link } from '../../main/core/link.ts';
import { twistFromDrive, type Odometry } from '../../main/core/messages.ts';
import { detectBridge } from '../../main/links/bridgeDetection.ts';
import type { DetectingLink } from '../../main/links/detectingLink.ts';
import { FoxgloveLink } from '../../main/links/foxglove/foxgloveLink.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import { openRobot } from '../../main/session/openRobot.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { startFoxgloveSim, type FoxgloveSim } from '../support/foxgloveSim.ts';
import { waitFor, waitForPresence } from '../support/linkEvents.ts';
import { killSimChild, startSimChild } from '../support/simChildProcess.ts';
import { hasOpenssl, makeTestAuthority, startTlsTerminator, type TestAuthority, type TlsTerminator } from '../support/tlsTerminator.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
const run = promisify(execFile);
const log = pino({ level: 'silent' });
const FAST_BACKOFF = { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 };

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function smallRobot(): SimRobot {
  return new SimRobot({ arenaSeed: 2, episodeSeed: 4, camera: { widthPx: 32, heightPx: 24, rateHz: 10 }, scan: { beams: 90, rateHz: 10 } });
}

async function firstOdometry(link: Link, timeoutMs = 5000): Promise<Odometry> {
  const odom = new WaitableLog<Odometry>('/odom');
  const unsubscribe = link.subscribe<Odometry>('/odom', (received) => odom.push(received.msg));
  try {
    await odom.until((items) => items.length > 0, 'odometry', timeoutMs);
    return odom.items[0]!;
  } finally {
    unsubscribe();
  }
}

describe('ws:// detection: foxglove_bridge or rosbridge, from the handshake', () => {
  let sim: FoxgloveSim;
  let legacy: FoxgloveSim;
  beforeAll(async () => {
    sim = await startFoxgloveSim(smallRobot(), { commandType: 'twist-stamped' });
    legacy = await startFoxgloveSim(smallRobot(), { legacy: true });
  });
  afterAll(async () => {
    await sim.close();
    await legacy.close();
  });

  it('tells foxglove_bridge 3.x, an older foxglove_bridge and rosbridge apart, and says when nothing answers', async () => {
    await expect(detectBridge(sim.foxglove.url, { timeoutMs: 2000 })).resolves.toEqual({ ok: true, protocol: 'foxglove', subprotocol: 'foxglove.sdk.v1' });
    await expect(detectBridge(legacy.foxglove.url, { timeoutMs: 2000 })).resolves.toEqual({
      ok: true,
      protocol: 'foxglove',
      subprotocol: 'foxglove.websocket.v1',
    });
    await expect(detectBridge(sim.rosbridge.url, { timeoutMs: 2000 })).resolves.toEqual({ ok: true, protocol: 'rosbridge' });
    const nothing = await detectBridge('ws://127.0.0.1:1', { timeoutMs: 2000 });
    expect(nothing).toMatchObject({ ok: false, reason: expect.stringMatching(/ECONNREFUSED/) });
  });

  it.each([
    ['foxglove_bridge', () => sim.foxglove.url, FoxgloveLink, 'geometry_msgs/msg/TwistStamped'],
    ['rosbridge', () => sim.rosbridge.url, RosbridgeLink, 'geometry_msgs/TwistStamped'],
  ] as const)('--robot ws://… reaching %s opens its link; a subscription made before it answered delivers', async (_name, url, expected, commandType) => {
    const opened = await openRobot({ kind: 'websocket', url: url() }, log);
    cleanups.push(() => opened.close());
    const link = opened.link as DetectingLink;
    const odom = firstOdometry(link);
    await waitForPresence(link, 'present');
    expect(link.attached()).toBeInstanceOf(expected);
    expect(link.protocol()).toBe(expected === FoxgloveLink ? 'foxglove' : 'rosbridge');
    await expect(odom).resolves.toMatchObject({ kind: 'Odometry' });
    await waitFor('the command topic listed', (resolve) => {
      const check = (): void => {
        if (link.topics().some((topic) => topic.topic === '/cmd_vel' && topic.type === commandType)) resolve(undefined);
      };
      check();
      const timer = setInterval(check, 50);
      return () => clearInterval(timer);
    });
    expect(link.publish('/cmd_vel', twistFromDrive({ linearMps: 0, angularRadps: 0.5 }))).toBe(true);
  });

  it('the Connect-robot dialog connects a ws:// foxglove_bridge address with the foxglove link', async () => {
    const first = await openRobot({ kind: 'websocket', url: sim.rosbridge.url }, log);
    const switchable = new SwitchableLink(first.link);
    const connections = new RobotConnections(
      switchable,
      { robot: sim.rosbridge.url, opened: first },
      { openRobot: (spec, topics) => openRobot(spec, log, [], topics), driver: () => 'idle' },
    );
    cleanups.push(() => connections.close());
    const address = sim.foxglove.url;
    const outcome = connections.connect(address, undefined);
    expect(outcome.ok).toBe(true);
    await outcome.settled;
    expect(connections.state()).toMatchObject({ robot: address, status: 'connected' });
    expect((switchable.attached() as DetectingLink).attached()).toBeInstanceOf(FoxgloveLink);
    await expect(firstOdometry(switchable)).resolves.toMatchObject({ kind: 'Odometry' });
    // What only the link found can do reaches it through the ws:// address: the robot's files and node parameters.
    const asset = await switchable.fetchAsset('package://reins_sim/meshes/lidar_housing.stl');
    expect(asset.ok).toBe(true);
    const parameter = await switchable.readNodeParameter('/robot_state_publisher', 'robot_description');
    expect(parameter).toMatchObject({ ok: true, value: expect.stringContaining('<robot') });
  });

  it('keeps trying while nothing answers, with an alert that says so, and never sends a command meanwhile', async () => {
    const opened = await openRobot({ kind: 'websocket', url: 'ws://127.0.0.1:1' }, log);
    cleanups.push(() => opened.close());
    await waitFor('the connection alert', (resolve) => {
      if (opened.link.alerts().length > 0) resolve(undefined);
      return opened.link.on('alerts', (alerts) => alerts.length > 0 && resolve(undefined));
    });
    expect(opened.link.presence()).toBe('connecting');
    expect(opened.link.alerts()[0]).toMatchObject({
      key: 'connection',
      message: expect.stringMatching(/Cannot reach the robot at ws:\/\/127\.0\.0\.1:1\/? \(connect ECONNREFUSED.*retrying/),
    });
    expect(opened.link.publish('/cmd_vel', twistFromDrive({ linearMps: 1, angularRadps: 0 }))).toBe(false);
  });
});

describe('reins probe ws://… against `reins sim --foxglove-port 0`', () => {
  it('probes the foxglove port with the foxglove link (ROS 2 types) and the rosbridge port with the rosbridge link', async () => {
    const sim = await startSimChild(0, ['--foxglove-port', '0', '--camera', '64x48@10']);
    try {
      const foxglove = sim.foxgloveUrl!;
      const rosbridge = sim.url;
      const probe = async (robot: string) => {
        const { stdout } = await run(process.execPath, [REINS, 'probe', robot, '--seconds', '1', '--json'], {
          env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
        });
        return JSON.parse(stdout) as { connected: boolean; topics: Array<{ name: string; type: string; hz: number }> };
      };
      const overFoxglove = await probe(foxglove);
      expect(overFoxglove.connected).toBe(true);
      expect(overFoxglove.topics.find((topic) => topic.name === '/camera/image_raw')).toMatchObject({ type: 'sensor_msgs/msg/Image' });
      const overRosbridge = await probe(rosbridge);
      expect(overRosbridge.connected).toBe(true);
      expect(overRosbridge.topics.find((topic) => topic.name === '/camera/image_raw')).toMatchObject({ type: 'sensor_msgs/Image' });
      expect(overRosbridge.topics.find((topic) => topic.name === '/odom')!.hz).toBeGreaterThan(5);
    } finally {
      await killSimChild(sim, 'SIGTERM');
    }
  }, 120_000);
});

// On CI (which installs openssl, .ci/run) it always runs: a missing openssl fails there rather than passing unseen.
describe.skipIf(!hasOpenssl() && process.env.CI !== 'true')('wss:// robots with a certificate from their own CA (--ca)', () => {
  let sim: FoxgloveSim;
  let authority: TestAuthority;
  let rosbridgeTls: TlsTerminator;
  let foxgloveTls: TlsTerminator;
  beforeAll(async () => {
    authority = makeTestAuthority();
    sim = await startFoxgloveSim(smallRobot());
    rosbridgeTls = await startTlsTerminator(authority, sim.rosbridge.port);
    foxgloveTls = await startTlsTerminator(authority, sim.foxglove.port);
  });
  afterAll(async () => {
    await rosbridgeTls?.close();
    await foxgloveTls?.close();
    await sim?.close();
    authority?.remove();
  });

  it.each([
    ['rosbridge', () => new RosbridgeLink({ url: `wss://localhost:${rosbridgeTls.port}`, timings: { backoff: FAST_BACKOFF } })],
    ['foxglove', () => new FoxgloveLink({ url: `wss://localhost:${foxgloveTls.port}`, timings: { backoff: FAST_BACKOFF } })],
  ] as const)('the %s link cannot connect without the CA, and says to give --ca', async (_name, open) => {
    const link = open();
    cleanups.push(() => link.close());
    const alert = await waitFor<{ message: string; hint?: string }>('the connection alert', (resolve) => {
      const check = (): void => {
        const found = link.alerts().find((each) => each.key === 'connection');
        if (found) resolve(found);
      };
      check();
      return link.on('alerts', check);
    });
    expect(alert.message).toMatch(/certificate/i);
    expect(alert.hint).toMatch(/--ca FILE/);
    expect(link.presence()).not.toBe('present');
  });

  it.each([
    ['rosbridge', () => new RosbridgeLink({ url: `wss://localhost:${rosbridgeTls.port}`, ca: authority.caPem })],
    ['foxglove', () => new FoxgloveLink({ url: `wss://localhost:${foxgloveTls.port}`, ca: authority.caPem })],
  ] as const)('the %s link connects with the CA and delivers', async (_name, open) => {
    const link = open();
    cleanups.push(() => link.close());
    await expect(firstOdometry(link)).resolves.toMatchObject({ kind: 'Odometry' });
  });

  it('detection over wss:// fails on the certificate without the CA and tells the bridges apart with it', async () => {
    const refused = await detectBridge(`wss://localhost:${foxgloveTls.port}`, { timeoutMs: 2000 });
    expect(refused).toMatchObject({ ok: false, reason: expect.stringMatching(/certificate/i) });
    await expect(detectBridge(`wss://localhost:${foxgloveTls.port}`, { timeoutMs: 2000, ca: authority.caPem })).resolves.toMatchObject({
      ok: true,
      protocol: 'foxglove',
    });
    await expect(detectBridge(`wss://127.0.0.1:${rosbridgeTls.port}`, { timeoutMs: 2000, ca: authority.caPem })).resolves.toEqual({
      ok: true,
      protocol: 'rosbridge',
    });
  });

  it('reins probe wss://… --ca FILE connects; a missing or non-PEM --ca file is a usage error that names it', async () => {
    const env = { ...process.env, REINS_LOG_LEVEL: 'silent' };
    const robot = `wss://localhost:${foxgloveTls.port}`;
    const { stdout } = await run(process.execPath, [REINS, 'probe', robot, '--ca', authority.caPath, '--seconds', '1', '--json'], { env });
    const report = JSON.parse(stdout) as { connected: boolean; topics: Array<{ name: string }> };
    expect(report.connected).toBe(true);
    expect(report.topics.map((topic) => topic.name)).toContain('/odom');
    const failure = (args: string[]) =>
      run(process.execPath, [REINS, 'probe', robot, ...args], { env }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
    const missing = await failure(['--ca', `${authority.folder}/nope.pem`]);
    expect(missing).toMatchObject({ code: 2, stderr: expect.stringMatching(/--ca .*nope\.pem: no such file/) });
    const notPem = await failure(['--ca', `${authority.folder}/server.ext`]);
    expect(notPem).toMatchObject({ code: 2, stderr: expect.stringMatching(/holds no PEM certificate/) });
  }, 60_000);
});
