// `reins sim`: the simulated robot on its own, as a ROS robot running rosbridge_server would be.
// Prints one line, `Reins sim: ws://HOST:PORT`, once it listens; logs go to stderr. `reins start`
// runs it with `--rosbridge-port 0 --identity TOKEN` and checks the token over /sim/identify. With
// `--foxglove-port PORT` it also serves the robot as foxglove_bridge 3.x would (`foxglove.sdk.v1`;
// `--foxglove-legacy`: the old `foxglove.websocket.v1` only), printing `Reins sim foxglove: ws://HOST:PORT` first.
import { parseArgs } from 'node:util';
import type { Logger } from 'pino';
import { SIM_COMMAND_TYPES, type SimCommandType } from '../sim/rosbridge/commandInput.ts';
import type { SimRosVersion } from '../sim/rosbridge/rosPersona.ts';
import { DEFAULT_ROSBRIDGE_PORT, startSimRosbridgeServer } from '../sim/rosbridge/server.ts';
import { LateRobotClock, startSimFoxgloveServer } from '../sim/foxglove/server.ts';
import { startSerialSim } from '../sim/serial/serialSim.ts';
import { SimRobot } from '../sim/simRobot.ts';
import { isSimTaskName, SIM_TASKS, type SimTaskName } from '../sim/tasks/taskNames.ts';
import { createLogger } from '../core/runtime/logger.ts';
import { UsageError } from './usageError.ts';

export interface SimArgs {
  rosbridgePort: number;
  host: string;
  insecure: boolean;
  arenaSeed: number;
  episodeSeed: number;
  task: SimTaskName;
  camera: { widthPx: number; heightPx: number; rateHz: number } | undefined;
  scan: { beams: number; rateHz: number } | undefined;
  /** The 3D point cloud on /points: its size and rate, or off; undefined for the default (16x360@10). */
  points: { enabled: boolean; layers?: number; beams?: number; rateHz?: number } | undefined;
  /** Publish a small ring of camera frames rendered at start, so a link bench does not measure rendering. */
  prerenderedCamera: boolean;
  identity: string | undefined;
  /** Also expose the robot as a serial device (main/links/serial/PROTOCOL.md) on a pty at this path. */
  serialPty: string | undefined;
  /** `--ros2`: rosbridge_suite's ROS 2 server (pkg/msg/Type names, sec/nanosec, cbor-raw) instead of ROS 1's. */
  rosVersion: SimRosVersion;
  /** What /cmd_vel takes: geometry_msgs/Twist, or geometry_msgs/TwistStamped with ROS 2 Jazzy's stamp rules (the default with --ros2). */
  commandType: SimCommandType;
  /** The robot's clock runs this many seconds ahead of the wall clock (negative: behind). */
  clockAheadSecs: number;
  /** Also serve the robot over the foxglove protocol on this port (0: a free one). */
  foxglovePort: number | undefined;
  /** The foxglove server speaks only the old `foxglove.websocket.v1`, as foxglove_bridge before 3.x. */
  foxgloveLegacy: boolean;
  /** `--no-rosapi`: rosbridge_server without rosapi, so a client cannot list topics, types or the time. */
  rosapi: boolean;
  /** `--no-robot-description-topic`: the model only as robot_state_publisher's parameter, not on /robot_description. */
  robotDescriptionTopic: boolean;
}

const MAX_CAMERA = { widthPx: 640, heightPx: 480, rateHz: 30 };
const MAX_SCAN = { beams: 2048, rateHz: 50 };
const MAX_POINTS = { layers: 128, beams: 2048, rateHz: 30 };
const MAX_SEED = 0xffff_ffff;
/** Enough that consecutive frames differ (each has its own noise); few enough to render in well under a second. */
const PRERENDERED_CAMERA_FRAMES = 8;
/** A day either way: enough for any clock a test or a demo sets wrong, small enough to stay a plausible time. */
const MAX_CLOCK_AHEAD_SECS = 86_400;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function parseSimArgs(args: string[]): SimArgs {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      'rosbridge-port': { type: 'string', default: String(DEFAULT_ROSBRIDGE_PORT) },
      host: { type: 'string', default: '127.0.0.1' },
      insecure: { type: 'boolean', default: false },
      'arena-seed': { type: 'string', default: '1' },
      seed: { type: 'string', default: '1' },
      task: { type: 'string', default: 'reach' },
      camera: { type: 'string' },
      scan: { type: 'string' },
      points: { type: 'string' },
      'prerendered-camera': { type: 'boolean', default: false },
      identity: { type: 'string' },
      'serial-pty': { type: 'string' },
      ros2: { type: 'boolean', default: false },
      'command-type': { type: 'string' },
      'clock-ahead-s': { type: 'string', default: '0' },
      'foxglove-port': { type: 'string' },
      'foxglove-legacy': { type: 'boolean', default: false },
      'no-rosapi': { type: 'boolean', default: false },
      'no-robot-description-topic': { type: 'boolean', default: false },
    },
  });
  const rosbridgePort = Number(values['rosbridge-port']);
  if (!Number.isInteger(rosbridgePort) || rosbridgePort < 0 || rosbridgePort > 65535) {
    throw new UsageError(`--rosbridge-port must be 0..65535, got "${values['rosbridge-port']}"`);
  }
  const task = values.task ?? 'reach';
  if (!isSimTaskName(task)) throw new UsageError(`--task "${task}" is not a task of the simulated robot: pick one of ${SIM_TASKS.join(', ')}`);
  if (values.identity !== undefined && !/^[A-Za-z0-9._~-]{16,256}$/.test(values.identity)) {
    throw new UsageError('--identity must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -');
  }
  return {
    rosbridgePort,
    host: values.host ?? '127.0.0.1',
    insecure: values.insecure ?? false,
    arenaSeed: parseSeed('--arena-seed', values['arena-seed'] ?? '1'),
    episodeSeed: parseSeed('--seed', values.seed ?? '1'),
    task,
    camera: values.camera === undefined ? undefined : parseCamera(values.camera),
    scan: values.scan === undefined ? undefined : parseScan(values.scan),
    points: values.points === undefined ? undefined : parsePoints(values.points),
    prerenderedCamera: values['prerendered-camera'] ?? false,
    identity: values.identity,
    serialPty: values['serial-pty'],
    rosVersion: values.ros2 === true ? 2 : 1,
    commandType: parseCommandType(values['command-type'] ?? (values.ros2 === true ? 'twist-stamped' : 'twist')),
    clockAheadSecs: parseClockAhead(values['clock-ahead-s'] ?? '0'),
    foxglovePort: parseFoxglovePort(values['foxglove-port'], values['foxglove-legacy'] ?? false),
    foxgloveLegacy: values['foxglove-legacy'] ?? false,
    rosapi: values['no-rosapi'] !== true,
    robotDescriptionTopic: values['no-robot-description-topic'] !== true,
  };
}

function parseFoxglovePort(text: string | undefined, legacy: boolean): number | undefined {
  if (text === undefined) {
    if (legacy) throw new UsageError('--foxglove-legacy needs --foxglove-port');
    return undefined;
  }
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--foxglove-port must be 0..65535, got "${text}"`);
  return port;
}

export async function runSim(args: SimArgs): Promise<number> {
  const log = createLogger('reins-sim');
  checkExposure(args, log);
  const robot = new SimRobot({
    arenaSeed: args.arenaSeed,
    episodeSeed: args.episodeSeed,
    task: args.task,
    camera: args.camera ?? {},
    scan: args.scan ?? {},
    points: args.points ?? {},
    prerenderedCameraFrames: args.prerenderedCamera ? PRERENDERED_CAMERA_FRAMES : 0,
  });
  // The serial device first, when asked for: the server's steps feed it the robot's sensor outputs.
  const serial =
    args.serialPty === undefined
      ? undefined
      : await startSerialSim({ ptyPath: args.serialPty, robot, log: (message) => log.warn(message) }).catch((error: unknown) => {
          process.stderr.write(`reins sim: --serial-pty ${args.serialPty}: ${error instanceof Error ? error.message : String(error)}\n`);
          return 'failed' as const;
        });
  if (serial === 'failed') return 1;
  // The foxglove server first, when asked for: it is one of the rosbridge server's sensor taps, on its clock.
  const foxgloveClock = new LateRobotClock(args.clockAheadSecs * 1000);
  const foxglove =
    args.foxglovePort === undefined
      ? undefined
      : await startSimFoxgloveServer({
          robot,
          host: args.host,
          port: args.foxglovePort,
          commandType: args.commandType,
          legacy: args.foxgloveLegacy,
          clock: foxgloveClock,
          log,
          robotDescriptionTopic: args.robotDescriptionTopic,
        }).catch(async (error: unknown) => {
          await serial?.close();
          process.stderr.write(`reins sim: --foxglove-port ${args.foxglovePort}: ${error instanceof Error ? error.message : String(error)}\n`);
          return 'failed' as const;
        });
  if (foxglove === 'failed') return 1;
  let signalFailure = (): void => undefined;
  const failed = new Promise<'failed'>((resolve) => (signalFailure = () => resolve('failed')));
  const server = await startSimRosbridgeServer({
    robot,
    host: args.host,
    port: args.rosbridgePort,
    identity: args.identity ?? '',
    log,
    sensorTaps: [...(serial ? [serial.sensors] : []), ...(foxglove ? [foxglove.sensors] : [])],
    rosVersion: args.rosVersion,
    commandType: args.commandType,
    clockAheadMs: args.clockAheadSecs * 1000,
    rosapi: args.rosapi,
    onFailure: () => signalFailure(),
    robotDescriptionTopic: args.robotDescriptionTopic,
  }).catch(async (error: unknown) => {
    await serial?.close();
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    return undefined;
  });
  if (server === undefined) {
    await foxglove?.close();
    process.stderr.write(
      `reins sim: ${args.host}:${args.rosbridgePort} is already in use; stop what listens there, or pass --rosbridge-port 0 for a free port\n`,
    );
    return 1;
  }
  if (serial) log.info({ serialPty: serial.ptyPath }, 'the simulated robot is also a serial device');
  foxgloveClock.attach(server.robotClock);
  if (foxglove) process.stdout.write(`Reins sim foxglove: ${foxglove.url}\n`);
  process.stdout.write(`Reins sim: ${server.url}\n`);
  log.info(
    {
      url: server.url,
      arenaSeed: args.arenaSeed,
      episodeSeed: args.episodeSeed,
      task: args.task,
      camera: robot.cameraOptions,
      prerenderedCamera: args.prerenderedCamera,
      scan: robot.scanOptions,
      rosVersion: args.rosVersion,
      commandType: args.commandType,
      clockAheadSecs: args.clockAheadSecs,
    },
    'simulated robot running',
  );

  const outcome = await Promise.race([failed, waitForSignal()]);
  log.info({ outcome }, 'shutting down the simulated robot');
  await serial?.close();
  await foxglove?.close();
  await server.close();
  return outcome === 'failed' ? 1 : 0;
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
    // Started by a cockpit: its stdin is a lifeline, so the sim never outlives a cockpit that died.
    if (process.env.REINS_EXIT_WITH_STDIN === '1') {
      process.stdin.resume();
      process.stdin.once('end', () => resolve('SIGHUP'));
      process.stdin.once('error', () => resolve('SIGHUP'));
    }
  });
}

function checkExposure(args: SimArgs, log: Logger): void {
  if (LOOPBACK.has(args.host)) return;
  if (!args.insecure) {
    throw new UsageError(
      `--host ${args.host} lets anyone on the network drive the simulated robot (rosbridge has no authentication): add --insecure to do it anyway`,
    );
  }
  log.warn({ host: args.host }, 'serving rosbridge beyond loopback (--insecure): anyone on the network can drive the simulated robot');
}

function parseCommandType(text: string): SimCommandType {
  if (!(SIM_COMMAND_TYPES as readonly string[]).includes(text))
    throw new UsageError(`--command-type must be one of ${SIM_COMMAND_TYPES.join(', ')}, got "${text}"`);
  return text as SimCommandType;
}

function parseClockAhead(text: string): number {
  const secs = Number(text);
  if (text.trim() === '' || !(Math.abs(secs) <= MAX_CLOCK_AHEAD_SECS))
    throw new UsageError(`--clock-ahead-s must be a number of seconds from -${MAX_CLOCK_AHEAD_SECS} to ${MAX_CLOCK_AHEAD_SECS}, got "${text}"`);
  return secs;
}

function parseSeed(flag: string, text: string): number {
  const seed = Number(text);
  if (!/^\d+$/.test(text) || seed > MAX_SEED) throw new UsageError(`${flag} must be a whole number from 0 to ${MAX_SEED}, got "${text}"`);
  return seed;
}

export function parseCamera(text: string): SimArgs['camera'] {
  const match = /^(\d+)x(\d+)@(\d+(?:\.\d+)?)$/.exec(text);
  const usage = `--camera takes WIDTHxHEIGHT@HZ up to ${MAX_CAMERA.widthPx}x${MAX_CAMERA.heightPx}@${MAX_CAMERA.rateHz} (e.g. 160x120@15), got "${text}"`;
  if (!match) throw new UsageError(usage);
  const [widthPx, heightPx, rateHz] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (widthPx < 1 || widthPx > MAX_CAMERA.widthPx || heightPx < 1 || heightPx > MAX_CAMERA.heightPx || !(rateHz > 0 && rateHz <= MAX_CAMERA.rateHz)) {
    throw new UsageError(usage);
  }
  return { widthPx, heightPx, rateHz };
}

export function parsePoints(text: string): SimArgs['points'] {
  if (text === 'off') return { enabled: false };
  const match = /^(\d+)x(\d+)@(\d+(?:\.\d+)?)$/.exec(text);
  const usage = `--points takes LAYERSxBEAMS@HZ up to ${MAX_POINTS.layers}x${MAX_POINTS.beams}@${MAX_POINTS.rateHz} (e.g. 16x360@10), or off; got "${text}"`;
  if (!match) throw new UsageError(usage);
  const [layers, beams, rateHz] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (layers < 1 || layers > MAX_POINTS.layers || beams < 1 || beams > MAX_POINTS.beams || !(rateHz > 0 && rateHz <= MAX_POINTS.rateHz))
    throw new UsageError(usage);
  return { enabled: true, layers, beams, rateHz };
}

function parseScan(text: string): SimArgs['scan'] {
  const match = /^(\d+)@(\d+(?:\.\d+)?)$/.exec(text);
  const usage = `--scan takes BEAMS@HZ with 1 to ${MAX_SCAN.beams} beams and up to ${MAX_SCAN.rateHz} Hz (e.g. 360@10), got "${text}"`;
  if (!match) throw new UsageError(usage);
  const [beams, rateHz] = [Number(match[1]), Number(match[2])];
  if (beams < 1 || beams > MAX_SCAN.beams || !(rateHz > 0 && rateHz <= MAX_SCAN.rateHz)) throw new UsageError(usage);
  return { beams, rateHz };
}
