import { describe, expect, it } from 'vitest';
import type { DriveValue } from './contract.ts';
import { DriveCommander } from './driveCommander.ts';
import { GamepadDrive, TriggerDeadman, driveFromStick, type DeadmanAction, type GamepadSnapshot } from './gamepadDrive.ts';
import { ManualClock } from '../../../test/fakes/manualClock.ts';

const LIMITS = { maxLinearMps: 1, maxAngularRadps: 2 };

function pad(leftX: number, leftY: number, rightTrigger = 0): GamepadSnapshot {
  const buttons = Array.from({ length: 17 }, () => ({ value: 0 }));
  buttons[7] = { value: rightTrigger };
  return { id: 'test pad', axes: [leftX, leftY, 0, 0], buttons };
}

describe('driveFromStick', () => {
  it('does nothing inside the deadzone', () => {
    expect(driveFromStick(0.05, -0.1, LIMITS)).toBeUndefined();
    expect(driveFromStick(0, 0, LIMITS)).toBeUndefined();
  });

  it('drives forward when pushed up and turns left when pushed left, up to the limits', () => {
    expect(driveFromStick(0, -1, LIMITS)).toEqual({ linearMps: 1, angularRadps: 0 });
    expect(driveFromStick(-1, 0, LIMITS)).toEqual({ linearMps: 0, angularRadps: 2 });
  });

  it('ramps from zero at the deadzone edge', () => {
    const command = driveFromStick(0, -0.575, LIMITS)!;
    expect(command.linearMps).toBeCloseTo(0.5, 5);
  });
});

describe('TriggerDeadman', () => {
  it('takes over past half travel and hands back on release, without chatter', () => {
    const deadman = new TriggerDeadman();
    const actions = [0, 0.3, 0.6, 0.7, 0.45, 0.55, 0.2, 0].map((value) => deadman.update(value));
    expect(actions).toEqual([undefined, undefined, 'take-over', undefined, undefined, undefined, 'hand-back', undefined]);
  });
});

describe('GamepadDrive', () => {
  it('drives at the control rate while the stick is out and sends one zero when it returns', () => {
    const clock = new ManualClock();
    const sent: DriveValue[] = [];
    const actions: DeadmanAction[] = [];
    const commander = new DriveCommander((command) => sent.push(command), clock);
    const gamepad = new GamepadDrive(
      commander,
      () => LIMITS,
      (action) => actions.push(action),
    );
    gamepad.poll(pad(0, -1));
    for (let frame = 0; frame < 30; frame++) {
      clock.advance(1000 / 60);
      gamepad.poll(pad(0, -1));
    }
    expect(sent.length).toBe(6);
    gamepad.poll(pad(0, 0));
    expect(sent.at(-1)).toEqual({ linearMps: 0, angularRadps: 0 });
    expect(actions).toEqual([]);
  });

  it('reads the stick as centred while driving is disabled, but keeps the trigger', () => {
    const sent: DriveValue[] = [];
    const actions: DeadmanAction[] = [];
    const commander = new DriveCommander((command) => sent.push(command), new ManualClock());
    const gamepad = new GamepadDrive(
      commander,
      () => LIMITS,
      (action) => actions.push(action),
    );
    gamepad.poll(pad(0, -1, 1), false);
    expect(sent).toEqual([]);
    expect(actions).toEqual(['take-over']);
  });

  it('hands back when the pad disconnects with the trigger held', () => {
    const actions: DeadmanAction[] = [];
    const commander = new DriveCommander(() => {}, new ManualClock());
    const gamepad = new GamepadDrive(
      commander,
      () => LIMITS,
      (action) => actions.push(action),
    );
    gamepad.poll(pad(0, 0, 1));
    gamepad.poll(undefined);
    expect(actions).toEqual(['take-over', 'hand-back']);
  });
});
