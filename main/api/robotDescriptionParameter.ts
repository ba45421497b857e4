// The robot's model from robot_state_publisher's `robot_description` parameter, for a ROS 2 robot
// whose /robot_description message does not reach the cockpit: the topic is transient-local, which a
// bridge subscribing late may not replay (or the robot does not offer it at all). Asked through the
// link (rosapi's get_param, foxglove_bridge's getParameters) once the topic has been quiet for a
// while, again now and then while it fails; what came back is checked as the topic's text is.
import type { Link } from '../core/link.ts';
import { MAX_URDF_BYTES, urdfProblem } from './robotModelFile.ts';

/** The node and parameter robot_state_publisher keeps the URDF in (ROS 2). */
export const ROBOT_STATE_PUBLISHER_NODE = '/robot_state_publisher';
export const ROBOT_DESCRIPTION_PARAMETER = 'robot_description';
/** How long the topic may stay silent before the parameter is asked: a latched message comes within a round trip. */
export const TOPIC_GRACE_MS = 2000;
/** A failed read is tried again after this long (the node may start later than the bridge). */
export const RETRY_AFTER_MS = 10_000;

export type ParameterModel = { ok: true; urdf: string; source: string } | { ok: false; problem: string };

export class RobotDescriptionParameter {
  /** What the last read gave; undefined before one has finished. */
  result: ParameterModel | undefined;
  private asking = false;
  private lastAskedMs = Number.NEGATIVE_INFINITY;
  private generation = 0;

  /** Asks when it is due (never twice at once); `onRead` is told when a read finishes. */
  poll(link: Link, nowMs: number, onRead: () => void): void {
    if (this.asking || this.result?.ok === true || nowMs - this.lastAskedMs < RETRY_AFTER_MS) return;
    const read = link.readNodeParameter?.bind(link);
    if (read === undefined) return;
    this.asking = true;
    this.lastAskedMs = nowMs;
    const generation = this.generation;
    void read(ROBOT_STATE_PUBLISHER_NODE, ROBOT_DESCRIPTION_PARAMETER).then((answer) => {
      if (generation !== this.generation) return;
      this.asking = false;
      this.result = answer.ok ? checked(answer.value) : { ok: false, problem: answer.problem };
      onRead();
    });
  }

  /** Another robot: what was read was the last one's. */
  reset(): void {
    this.generation++;
    this.asking = false;
    this.lastAskedMs = Number.NEGATIVE_INFINITY;
    this.result = undefined;
  }
}

const SOURCE = `parameter ${ROBOT_STATE_PUBLISHER_NODE} ${ROBOT_DESCRIPTION_PARAMETER}`;

function checked(value: unknown): ParameterModel {
  if (typeof value !== 'string') return { ok: false, problem: `the robot's ${SOURCE} is not text (a ${typeof value})` };
  if (value.length > MAX_URDF_BYTES) return { ok: false, problem: `the robot's ${SOURCE} is over ${MAX_URDF_BYTES / 1024 / 1024} MiB: it is not used` };
  const problem = urdfProblem(value);
  return problem === undefined ? { ok: true, urdf: value, source: SOURCE } : { ok: false, problem: `the robot's ${SOURCE} ${problem}` };
}
