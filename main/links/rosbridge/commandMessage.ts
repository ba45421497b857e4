// A velocity command in the type the robot's command topic carries: geometry_msgs/Twist or
// geometry_msgs/TwistStamped, under ROS 1 or ROS 2 names. A TwistStamped is stamped zero by default
// (ROS 2 Jazzy's diff_drive_controller replaces a zero stamp with its own "now"), or with the robot's
// clock where the operator asks; never with the cockpit's: the controller drops a command stamped
// 0.5 s behind its clock and keeps obeying one stamped ahead of it until that stamp has passed.
import { canonicalTypeName } from './decode/messageTypes.ts';
import type { WireTwist } from './decode/twists.ts';

export type CommandShape = 'Twist' | 'TwistStamped';

/** `zero`: the robot stamps it on arrival; `robot`: the robot's clock, from the link's clock-offset estimate. */
export type CommandStampSource = 'zero' | 'robot';
export const COMMAND_STAMP_SOURCES: readonly CommandStampSource[] = ['zero', 'robot'];

export interface CommandStampOptions {
  stamp: CommandStampSource;
  frameId: string;
}

export const DEFAULT_COMMAND_STAMP: Readonly<CommandStampOptions> = Object.freeze({ stamp: 'zero', frameId: 'base_link' });

/** The command shape of a ROS type, or undefined for a type the link cannot send commands in. */
export function commandShapeOf(rosType: string): CommandShape | undefined {
  const name = canonicalTypeName(rosType);
  if (name === 'geometry_msgs/Twist') return 'Twist';
  if (name === 'geometry_msgs/TwistStamped') return 'TwistStamped';
  return undefined;
}

/** A time as the robot's rosbridge writes it: `{sec, nanosec}` for ROS 2 names, `{secs, nsecs}` for ROS 1. */
export function wireTime(rosType: string, stampMs: number | undefined): Record<string, number> {
  const ms = stampMs === undefined || !(stampMs > 0) ? 0 : stampMs;
  const secs = Math.floor(ms / 1000);
  const nanos = Math.min(999_999_999, Math.round((ms - secs * 1000) * 1e6));
  return rosType.split('/').length === 3 ? { sec: secs, nanosec: nanos } : { secs, nsecs: nanos };
}

/** The message to publish: the twist itself, or wrapped in a header stamped `stampMs` (undefined: zero). */
export function commandMessage(twist: WireTwist, rosType: string, shape: CommandShape, frameId: string, stampMs: number | undefined): unknown {
  if (shape === 'Twist') return twist;
  return { header: { stamp: wireTime(rosType, stampMs), frame_id: frameId }, twist };
}
