// The simulated robot, noting when each drive command reaches it: for fault tests that measure what
// arrives at the robot, and when.
import type { DriveCommand } from '../../main/core/messages.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { WaitableLog } from './waitableLog.ts';

export class TimedRobot extends SimRobot {
  readonly received = new WaitableLog<DriveCommand & { atMs: number }>('drive commands at the robot');

  override drive(command: DriveCommand): boolean {
    this.received.push({ ...command, atMs: Date.now() });
    return super.drive(command);
  }
}
