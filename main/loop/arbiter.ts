// Decides who drives: e-stop beats the operator, the operator beats the policy, and with autonomy
// off only the operator moves the robot. Pure state; the control loop acts on its answers.
import { isZeroDrive, type DriveCommand } from '../core/messages.ts';
import type { Driver } from '../core/tickReport.ts';

/** An operator drive command older than this counts as released (the UI resends while a key is held). */
export const OPERATOR_COMMAND_TTL_MS = 300;

export class Arbiter {
  private estopped = false;
  private autonomy = false;
  private tookOver = false;
  private operatorCommand: DriveCommand | undefined;
  private operatorCommandAtMs = -Infinity;

  isEStopped(): boolean {
    return this.estopped;
  }

  isAutonomous(): boolean {
    return this.autonomy;
  }

  hasTakenOver(): boolean {
    return this.tookOver;
  }

  estop(): void {
    this.estopped = true;
    this.operatorCommand = undefined;
  }

  /** Releasing the e-stop leaves the robot idle: autonomy stays off until the operator turns it on. */
  releaseEStop(): void {
    this.estopped = false;
    this.autonomy = false;
    this.tookOver = false;
  }

  setAutonomy(enabled: boolean): void {
    this.autonomy = enabled;
    if (!enabled) this.tookOver = false;
  }

  takeOver(): void {
    this.tookOver = true;
  }

  handBack(): void {
    this.tookOver = false;
    this.operatorCommand = undefined;
  }

  /**
   * Records the operator's drive input. Driving while the policy drives takes over (latched).
   * Returns true when this input started a takeover.
   */
  operatorDrive(command: DriveCommand, nowMs: number): boolean {
    if (this.estopped) return false;
    this.operatorCommand = command;
    this.operatorCommandAtMs = nowMs;
    if (this.autonomy && !this.tookOver && !isZeroDrive(command)) {
      this.tookOver = true;
      return true;
    }
    return false;
  }

  /** The operator's current command: their last input while fresh, else standing still. */
  operatorCommandAt(nowMs: number): DriveCommand {
    const fresh = this.operatorCommand !== undefined && nowMs - this.operatorCommandAtMs <= OPERATOR_COMMAND_TTL_MS;
    return fresh && this.operatorCommand ? this.operatorCommand : { linearMps: 0, angularRadps: 0 };
  }

  /** Who drives now. `operatorPresent` is the heartbeat watchdog's verdict. */
  driver(nowMs: number, operatorPresent: boolean): Driver {
    if (this.estopped) return 'estopped';
    if (!operatorPresent) return 'idle';
    if (this.tookOver || !isZeroDrive(this.operatorCommandAt(nowMs))) return 'operator';
    if (this.autonomy) return 'policy';
    return 'idle';
  }
}
