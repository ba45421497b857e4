// `reins`: the command line. Usage mistakes print a clear message and exit with 2.
import { runBench } from './bench/runBench.ts';
import { createLogger } from '../core/runtime/logger.ts';
import { runProbe } from './probe/runProbe.ts';
import { parseRecordArgs, runRecord } from './record.ts';
import { StartupError } from '../session/startupError.ts';
import { parseBenchArgs, parseProbeArgs, parseStartArgs } from './args.ts';
import { UsageError } from './usageError.ts';
import { parseSimArgs, runSim } from './sim.ts';
import { runStart } from './start.ts';
import { runSetupCommand, SETUP_USAGE } from './setupGpu.ts';
import { runSoakCommand, SOAK_USAGE } from './soak/soakCommand.ts';

const USAGE = `Usage:
  reins start [--robot sim|ws://HOST:PORT|foxglove://HOST:PORT|serial:/dev/PATH?baud=N] [--headless] [--port 8787]
              [--host 127.0.0.1] [--token T] [--rate-hz 10] [--tls-cert FILE --tls-key FILE] [--insecure]
              [--sim-camera WxH@HZ] [--sim-prerendered-camera] [--sim-points LAYERSxBEAMS@HZ|off]
                                                  (passed to the built-in sim as --camera, --prerendered-camera, --points)
              [--encoders models/manifest.json]   the encoder manifest (your own encoders: see README "Encoders")
              [--encoder-threads 1]               onnxruntime threads per encoder run (intra-op)
              [--recordings DIR | --no-record]    session MCAP logs (default $XDG_DATA_HOME/reins/recordings, 20 GiB quota)
              [--memory URI | --no-memory]        LanceDB memory of every tick (default $XDG_DATA_HOME/reins/memory)
              [--watchdog-ms 300]                 stop the robot after this long without the cockpit's heartbeat (100–3000)
              [--memory-budget-mib 1536]          the core's resident memory budget: above 90 % learning pauses until under 80 %
              [--points-topic /points]            the point cloud the 3D view shows (default /points, else the first PointCloud2)
              [--urdf FILE]                       the robot's model in the 3D view (default: the robot's /robot_description topic,
                                                  else robot_state_publisher's parameter); a .xacro is expanded, with
              [--xacro-arg NAME:=VALUE]...        its arguments and
              [--ros-package NAME=DIR]...         the folders of the packages its $(find NAME) names (default: the package it
                                                  sits in, AMENT_PREFIX_PATH, ROS_PACKAGE_PATH)
              [--command-stamp zero|robot] [--command-frame-id base_link]
                                                  a TwistStamped command topic's stamp: zero (the controller's now) or the robot's clock
              [--world-model wm-xs | --no-world-model] [--replay-ratio 64]
                                                  the world model beside the loop, learning from memory (presets: wm-s, wm-xs, wm-xxs)
  reins sim [--rosbridge-port 9090] [--host 127.0.0.1] [--insecure] [--arena-seed N] [--seed N] [--task reach|dock|corridor]
            [--camera WxH@HZ] [--scan BEAMS@HZ] [--points LAYERSxBEAMS@HZ|off] [--prerendered-camera] [--serial-pty PATH] [--identity TOKEN]
            [--ros2]                               as rosbridge_suite's ROS 2 server: pkg/msg/Type names, sec/nanosec, cbor-raw, TwistStamped
            [--command-type twist|twist-stamped]   what /cmd_vel takes (twist-stamped: ROS 2 Jazzy's rules, a stamp 0.5 s old is dropped)
            [--clock-ahead-s 0]                    the robot's clock runs this many seconds ahead of the wall clock
            [--foxglove-port 8765] [--foxglove-legacy]  also serve it as foxglove_bridge 3.x (foxglove.sdk.v1; legacy: foxglove.websocket.v1 only)
            [--no-robot-description-topic]         the model only as robot_state_publisher's robot_description parameter
  reins probe ROBOT [--seconds 5] [--json]   ROBOT: sim | ws://HOST:PORT | foxglove://HOST:PORT | serial:/dev/PATH?baud=N
  reins review FILE [--rescore] [--memory URI | --no-memory] [--world-model wm-xs | --no-world-model]
              [--topic-map JSON|FILE]     the log's topics for the roles, as '{"camera": "/front/image", "odom": "/wheel_odom"}'
              [--headless] [--port 8787] [--host 127.0.0.1] [--token T] [--encoders PATH] [--urdf FILE]
                                       plays a recorded session (FILE: an MCAP log, Reins' or ros2 bag's, or a ROS 1 .bag)
                                       through the pipeline (0.25×–8×, seek), its markers and
                                       "find similar moments" across the memory; sends nothing, writes nothing
                                       (--rescore: memory rows re-scored with the current models)
  reins record ROBOT -o FILE.mcap [--seconds N]   records the robot's sensor streams (until Ctrl-C without --seconds)
  reins bench SUITE [--json FILE] [--encoders PATH] [--encoder-threads N]
                                       suites: tick, perception, memory, memory-upkeep, worldmodel, learning, sim, bridge, ui, recording (--encoders*: tick, perception, memory, learning)
                                       learning: [--methods reins,bc,none] [--task reach,dock,corridor] [--operator realistic,expert] [--seeds 1,2]
                                                 [--budgets 5,10,20] [--jobs N (default: the cores)] [--no-world-model]
                                                 [--eval-episodes 50] (200: Reins and bc paired on 200 episodes, as with --sequence)
                                       memory: [--rows 1000000] [--under-load also|only|off]  (only: the searches beside a running soak core alone)
                                       worldmodel: [--save FILE] (keep the model it trained) | [--from FILE] (evaluate a kept model, no training)
${SOAK_USAGE}
${SETUP_USAGE}
  reins help`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'start':
        return await runStart(parseStartArgs(rest));
      case 'bench':
        return await runBench(parseBenchArgs(rest));
      case 'probe':
        return await runProbe(parseProbeArgs(rest), createLogger('reins'));
      case 'review': {
        const [file, ...options] = rest;
        if (file === undefined || file.startsWith('--')) throw new UsageError('reins review needs the log to open (MCAP or ROS 1 .bag): reins review FILE');
        return await runStart(parseStartArgs(['--review', file, ...options]));
      }
      case 'record':
        return await runRecord(parseRecordArgs(rest), createLogger('reins'));
      case 'sim':
        return await runSim(parseSimArgs(rest));
      case 'soak':
        return await runSoakCommand(rest);
      case 'setup':
        return await runSetupCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`reins: ${(error as Error).message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof StartupError) {
      process.stderr.write(`reins: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`reins: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

function isParseArgsError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS');
}
