// What a core session is opened with: the robot, the API server's options, the encoders, the stores, the
// world model, review mode. `reins start` parses them from its arguments (cli/args.ts); the soak builds its own.
import type { XacroInputs } from '../api/xacroExpansion.ts';
import type { StreamRole } from '../core/frame.ts';
import type { CommandStampOptions } from './linkParts.ts';
import type { SessionStoreArgs } from './sessionStores.ts';
import type { WorldModelArgs } from './worldModelOptions.ts';

export interface StartArgs {
  robot: string | undefined;
  headless: boolean;
  host: string;
  port: number;
  token: string | undefined;
  rateHz: number;
  tlsCert: string | undefined;
  tlsKey: string | undefined;
  insecure: boolean;
  /** Extra arguments for the built-in simulated robot (`reins sim`); empty for any other robot. */
  simArgs: string[];
  /** The encoder manifest, absolute; undefined for the default models. */
  encoders: string | undefined;
  /** onnxruntime intra-op threads per encoder run; undefined for the measured default. */
  encoderThreads: number | undefined;
  stores: SessionStoreArgs;
  worldModel: WorldModelArgs;
  /** Review mode: the MCAP log played instead of a robot (absolute); undefined to drive a robot. */
  review: string | undefined;
  /** Review mode writes re-scored memory rows with the current models. */
  rescore: boolean;
  /** Review mode: the log's topics the operator chose for some of the loop's roles (`--topic-map`); the others are found by name, then by type. */
  reviewTopics?: Partial<Record<StreamRole, string>>;
  /** The point-cloud topic the 3D view shows; undefined: /points, else the robot's first PointCloud2. */
  pointsTopic: string | undefined;
  /** The robot's model for the 3D view (`--urdf FILE`, absolute); undefined: the robot's robot_description topic. */
  urdf?: string | undefined;
  /** What a `.xacro` model is expanded with: `--xacro-arg NAME:=VALUE`, `--ros-package NAME=DIR`. */
  xacro?: XacroInputs;
  /** How long the operator's heartbeat (or the loop) may be silent before the robot is stopped. */
  watchdogMs: number;
  /** The core's resident memory budget (`--memory-budget-mib`); undefined for the default, 1.5 GiB. Near it, learning pauses. */
  memoryBudgetMib?: number | undefined;
  /** How a TwistStamped command topic is stamped and framed; undefined for the link's default (stamp zero, base_link). */
  command?: Partial<CommandStampOptions>;
  /** `--ca FILE`: the certificate authorities a wss:// robot's certificate is checked against (the file's absolute path and its PEM text). */
  ca?: { path: string; pem: string };
}
