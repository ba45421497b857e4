// `reins bench bridge`: how the robot links perform (issue 4). Images and scans over rosbridge, JSON
// against CBOR, and (issue 28) images from a ROS 2 rosbridge as cbor-raw (the CDR decoded with the
// robot's definitions) and over foxglove_bridge, from the simulated robot running as its own process (so its CPU is apart from the
// cockpit's) and publishing pre-rendered camera frames (so rendering is not measured); the command
// round trip to the reference firmware under simavr; and the watchdog's stop time with the control
// loop on real timers. The sim stamps a message with its physics step's simulated time, and runs
// those 10 ms steps up to one step behind the wall clock, so stream latencies include ~5 ms of that.
import type { Logger } from 'pino';
import { createSimLink, startRealtime } from '../../sim/lockstepLink.ts';
import { createLogger } from '../../core/runtime/logger.ts';
import { startSimProcess } from '../../session/simProcess.ts';
import type { BenchRow } from './report.ts';
import { measureFoxgloveStream } from './foxgloveStreamBench.ts';
import { measureStream, type StreamCase, type StreamTimings } from './rosbridgeStreamBench.ts';
import { runSerialRoundTripBench } from './serialRoundTripBench.ts';
import { runWatchdogBench } from './watchdogBench.ts';

const CAMERA = '640x480@30';
const SCAN = '720@30';
/** From the ROS 2 persona (`reins sim --ros2`): the link decodes the CDR with rosapi's definitions, as for a real ROS 2 robot. */
const ROS2_STREAM_CASES: readonly StreamCase[] = [{ name: `image-${CAMERA}-cbor-raw`, topic: '/camera/image_raw', compression: 'cbor-raw' }];
const STREAM_CASES: readonly StreamCase[] = [
  { name: `image-${CAMERA}-json`, topic: '/camera/image_raw', compression: 'none' },
  { name: `image-${CAMERA}-cbor`, topic: '/camera/image_raw', compression: 'cbor' },
  { name: `scan-${SCAN}-json`, topic: '/scan', compression: 'none' },
  { name: `scan-${SCAN}-cbor`, topic: '/scan', compression: 'cbor' },
];

export interface BridgeBenchOptions {
  stream: StreamTimings;
  watchdogTrials: number;
}

export const DEFAULT_BRIDGE_BENCH_OPTIONS: Readonly<BridgeBenchOptions> = Object.freeze({
  stream: { connectTimeoutMs: 10_000, warmupMs: 1000, windowMs: 5000 },
  watchdogTrials: 40,
});

export async function runBridgeBench(
  options: BridgeBenchOptions = DEFAULT_BRIDGE_BENCH_OPTIONS,
  log: Logger = createLogger('reins-bench'),
): Promise<BenchRow[]> {
  const streamRows = await measureStreams(options.stream, log);
  log.info('serial round trip to the reference firmware under simavr');
  const serialRows = await runSerialRoundTripBench();
  log.info({ trials: options.watchdogTrials }, 'watchdog stop, control loop on real timers against the simulated robot in-process');
  const watchdogRows = await measureWatchdog(options.watchdogTrials);
  return [...streamRows, ...serialRows, ...watchdogRows];
}

async function measureStreams(timings: StreamTimings, log: Logger): Promise<BenchRow[]> {
  // The same robot also served as foxglove_bridge serves a ROS 2 robot (cdr, ros2msg), for the foxglove row.
  const sim = await startSimProcess(log, ['--camera', CAMERA, '--scan', SCAN, '--prerendered-camera', '--foxglove-port', '0']);
  try {
    const rows: BenchRow[] = [];
    for (const streamCase of STREAM_CASES) {
      const result = await measureStream(sim.url, streamCase, timings);
      const offset = result.clockOffset;
      log.info(
        {
          case: streamCase.name,
          clockOffsetMs: offset?.offsetMs,
          clockOffsetUncertaintyMs: offset?.uncertaintyMs,
          clockOffsetSource: offset?.source,
          alerts: result.alerts.map((alert) => alert.message),
        },
        "measured a rosbridge stream; latency uses the link's clock-offset estimate",
      );
      rows.push(...result.rows);
    }
    if (sim.foxgloveUrl === undefined) throw new Error('the simulated robot printed no foxglove address');
    const foxglove = await measureFoxgloveStream(sim.foxgloveUrl, sim.url, `image-${CAMERA}-foxglove`, '/camera/image_raw', timings);
    log.info(
      {
        case: `image-${CAMERA}-foxglove`,
        clockOffsetMs: foxglove.clockOffset?.offsetMs,
        clockOffsetUncertaintyMs: foxglove.clockOffset?.uncertaintyMs,
        alerts: foxglove.alerts.map((alert) => alert.message),
      },
      "measured a foxglove stream (cdr); latency uses the same robot's clock offset, from a rosbridge link beside it",
    );
    rows.push(...foxglove.rows);
    rows.push(...(await measureRos2Streams(timings, log)));
    return rows;
  } finally {
    await sim.close();
  }
}

/** The same camera from the ROS 2 persona, in a process of its own started after the ROS 1 robot is measured. */
async function measureRos2Streams(timings: StreamTimings, log: Logger): Promise<BenchRow[]> {
  const sim = await startSimProcess(log, ['--ros2', '--camera', CAMERA, '--scan', SCAN, '--prerendered-camera']);
  try {
    const rows: BenchRow[] = [];
    for (const streamCase of ROS2_STREAM_CASES) {
      const result = await measureStream(sim.url, streamCase, timings);
      log.info(
        { case: streamCase.name, clockOffsetMs: result.clockOffset?.offsetMs, alerts: result.alerts.map((alert) => alert.message) },
        'measured a ROS 2 rosbridge stream (cbor-raw, decoded with the robot’s definitions)',
      );
      rows.push(...result.rows);
    }
    return rows;
  } finally {
    await sim.close();
  }
}

async function measureWatchdog(trials: number): Promise<BenchRow[]> {
  const link = createSimLink();
  const stopRobot = startRealtime(link);
  try {
    return await runWatchdogBench(link, trials);
  } finally {
    stopRobot();
    await link.close();
  }
}
