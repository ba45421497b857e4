// The cockpit in a loop-level test: the operator's heartbeat and stick every 50 ms, as the UI sends
// them while a key is held. Returns the stop (call it before closing the loop).
import type { DriveCommand } from '../../main/core/messages.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';

export function operatorAtTheStick(loop: Pick<ControlLoop, 'heartbeat' | 'operatorDrive'>, command: () => DriveCommand, periodMs = 50): () => void {
  const timer = setInterval(() => {
    loop.heartbeat();
    loop.operatorDrive(command());
  }, periodMs);
  return () => clearInterval(timer);
}

/** Each command a little different (its turn rate), so every one that reaches the robot can be told apart. */
export function distinctCommands(linearMps = 0.2): () => DriveCommand {
  let step = 0;
  return () => ({ linearMps, angularRadps: 0.3 + 0.001 * (step++ % 200) });
}
