import { describe, expect, it } from 'vitest';
import type { DriveCommand } from '../../core/messages.ts';
import { SimRobot } from '../simRobot.ts';
import { CommandInput, judgeCommandStamp } from './commandInput.ts';

const WALL_MS = 1_764_000_000_000;
/** The robot's clock runs 10 s ahead of the cockpit's (here, the wall clock). */
const ROBOT_NOW_MS = WALL_MS + 10_000;

function stamped(stampMs: number, linearMps = 0.3) {
  const secs = Math.floor(stampMs / 1000);
  return { header: { stamp: { secs, nsecs: Math.round((stampMs - secs * 1000) * 1e6) }, frame_id: 'base_link' }, twist: { linear: { x: linearMps } } };
}

function robotInput() {
  const received: Array<DriveCommand & { ageSecs: number }> = [];
  const input = new CommandInput('twist-stamped', { drive: (command, ageSecs) => (received.push({ ...command, ageSecs }), true) }, () => ROBOT_NOW_MS);
  return { input, received };
}

describe('judgeCommandStamp (ROS 2 Jazzy diff_drive_controller)', () => {
  it('takes a zero stamp as now, drops a stamp 0.5 s old or older, and takes one from the future', () => {
    expect(judgeCommandStamp(undefined, ROBOT_NOW_MS)).toEqual({ take: true, ageMs: 0 });
    expect(judgeCommandStamp(ROBOT_NOW_MS - 499, ROBOT_NOW_MS)).toEqual({ take: true, ageMs: 499 });
    expect(judgeCommandStamp(ROBOT_NOW_MS - 500, ROBOT_NOW_MS)).toEqual({ take: false, ageMs: 500 });
    expect(judgeCommandStamp(ROBOT_NOW_MS + 10_000, ROBOT_NOW_MS)).toEqual({ take: true, ageMs: -10_000 });
  });
});

describe('the simulated robot taking TwistStamped commands, its clock 10 s ahead of the cockpit', () => {
  it('obeys a command stamped zero, as issued now', () => {
    const { input, received } = robotInput();
    expect(input.topic).toMatchObject({ name: '/cmd_vel', type: 'geometry_msgs/TwistStamped' });
    expect(input.take({ header: { stamp: { sec: 0, nanosec: 0 } }, twist: { linear: { x: 0.3 } } })).toMatchObject({ ok: true, obeyed: true });
    expect(received).toEqual([{ linearMps: 0.3, angularRadps: 0, ageSecs: 0 }]);
  });

  it("obeys a command stamped with the robot's clock", () => {
    const { input, received } = robotInput();
    expect(input.take(stamped(ROBOT_NOW_MS - 20))).toMatchObject({ ok: true, obeyed: true });
    expect(received).toHaveLength(1);
    expect(received[0]!.ageSecs).toBeCloseTo(0.02, 6);
  });

  it("drops, without a word to the sender, a command stamped with the cockpit's clock (10 s old to the robot)", () => {
    const { input, received } = robotInput();
    const taken = input.take(stamped(WALL_MS));
    // Accepted on the wire (rosbridge has no reply for it) but never reaches the drive.
    expect(taken).toMatchObject({ ok: true, obeyed: false });
    expect(received).toEqual([]);
  });

  it('obeys a command from the future, which then lasts until its stamp plus the timeout', () => {
    const { input, received } = robotInput();
    expect(input.take(stamped(ROBOT_NOW_MS + 2000))).toMatchObject({ ok: true, obeyed: true });
    expect(received[0]!.ageSecs).toBeCloseTo(-2, 6);
  });

  it('refuses a malformed message with a reason, and a plain Twist input ignores stamps', () => {
    const { input } = robotInput();
    expect(input.take({ twist: { linear: { x: 'fast' } } })).toMatchObject({ ok: false, message: expect.stringContaining('TwistStamped') });
    expect(input.take({ linear: { x: 0.1 } })).toMatchObject({ ok: false });
    const plain: number[] = [];
    const twist = new CommandInput('twist', { drive: (_command, ageSecs) => (plain.push(ageSecs), true) }, () => ROBOT_NOW_MS);
    expect(twist.topic.type).toBe('geometry_msgs/Twist');
    expect(twist.take({ linear: { x: 0.1 } })).toMatchObject({ ok: true, obeyed: true });
    expect(plain).toEqual([0]);
  });
});

describe("the simulated robot's drive with a command's age", () => {
  it('keeps obeying a command stamped 1 s in the future until 0.5 s after its stamp, then brakes', () => {
    const robot = new SimRobot({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 }, autoReset: false });
    // Turning on the spot: nothing in the arena can stop it.
    expect(robot.drive({ linearMps: 0, angularRadps: 1 }, -1)).toBe(true);
    robot.step(1.4);
    expect(robot.groundTruth().angularRadps).toBeCloseTo(1, 2);
    robot.step(0.5);
    expect(robot.groundTruth().angularRadps).toBe(0);
  });

  it('brakes at once on a command already as old as the timeout', () => {
    const robot = new SimRobot({ arenaSeed: 7, episodeSeed: 7, arena: { sizeM: 10, obstacleCount: 0 }, autoReset: false });
    expect(robot.drive({ linearMps: 0, angularRadps: 1 }, 0.49)).toBe(true);
    robot.step(0.3);
    expect(robot.groundTruth().angularRadps).toBe(0);
  });
});
