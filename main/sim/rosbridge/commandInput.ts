// The robot's command input as its controller takes it, for the rosbridge server: plain
// geometry_msgs/Twist, obeyed on arrival, or geometry_msgs/TwistStamped with the rules of ROS 2
// Jazzy's diff_drive_controller (see RESEARCH.md, "ROS 2 robots as they are"): a zero stamp means
// "now"; a command whose stamp is cmd_vel_timeout (0.5 s) or more behind the robot's clock is
// dropped without a word to the sender (the controller only logs it); a stamp from the future is
// taken, and the command then lasts until its stamp plus the timeout.
import type { DriveCommand } from '../../core/messages.ts';
import { COMMAND_TIMEOUT_SECS } from '../simRobot.ts';
import type { RosMessage } from './rosMessages.ts';
import { CMD_VEL_TOPIC, type KnownTopic } from './topicCatalog.ts';
import { parseTwist, parseTwistStamped } from './twistMessage.ts';

export type SimCommandType = 'twist' | 'twist-stamped';
export const SIM_COMMAND_TYPES: readonly SimCommandType[] = ['twist', 'twist-stamped'];

const ROS_TYPES: Readonly<Record<SimCommandType, string>> = { twist: 'geometry_msgs/Twist', 'twist-stamped': 'geometry_msgs/TwistStamped' };

/** What a stamped command's age (robot now − stamp, ms) means to the controller. */
export type StampVerdict = { take: true; ageMs: number } | { take: false; ageMs: number };

/** Jazzy's rule: zero is now; taken while younger than the timeout (a future stamp is younger). */
export function judgeCommandStamp(stampMs: number | undefined, robotNowMs: number, timeoutMs = COMMAND_TIMEOUT_SECS * 1000): StampVerdict {
  const ageMs = stampMs === undefined ? 0 : robotNowMs - stampMs;
  return ageMs < timeoutMs ? { take: true, ageMs } : { take: false, ageMs };
}

/** The robot side of a command: `drive` gets the command and how old it already is (negative: from the future). */
export interface CommandSink {
  drive(command: DriveCommand, ageSecs: number): boolean;
}

export type TakenCommand =
  /** Parsed; obeyed, or (stale stamp) dropped silently. `msg` goes to /cmd_vel's watchers either way, as on a ROS topic. */
  { ok: true; obeyed: boolean; msg: RosMessage } | { ok: false; message: string };

export class CommandInput {
  readonly topic: KnownTopic;

  constructor(
    readonly type: SimCommandType,
    private readonly sink: CommandSink,
    /** The robot's clock now, in ms since the epoch (what /rosapi/get_time answers). */
    private readonly robotNowMs: () => number,
  ) {
    this.topic = Object.freeze({ ...CMD_VEL_TOPIC, type: ROS_TYPES[type] });
  }

  take(msg: unknown): TakenCommand {
    if (this.type === 'twist') {
      const twist = parseTwist(msg);
      if (!twist.ok) return twist;
      if (!this.sink.drive(twist.command, 0)) return { ok: false, message: 'the robot refused the command' };
      return { ok: true, obeyed: true, msg: twist.msg };
    }
    const stamped = parseTwistStamped(msg);
    if (!stamped.ok) return stamped;
    const verdict = judgeCommandStamp(stamped.stampMs, this.robotNowMs());
    if (!verdict.take) return { ok: true, obeyed: false, msg: stamped.msg };
    if (!this.sink.drive(stamped.command, verdict.ageMs / 1000)) return { ok: false, message: 'the robot refused the command' };
    return { ok: true, obeyed: true, msg: stamped.msg };
  }
}
