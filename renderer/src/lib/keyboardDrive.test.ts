import { beforeEach, describe, expect, it } from 'vitest';
import type { DriveValue } from './contract.ts';
import { DriveCommander } from './driveCommander.ts';
import type { DriveDirection } from './driveKeys.ts';
import { KeyboardDrive } from './keyboardDrive.ts';
import { ManualClock } from '../../../test/fakes/manualClock.ts';

describe('KeyboardDrive with the DriveCommander', () => {
  let clock: ManualClock;
  let sent: DriveValue[];
  let commander: DriveCommander;
  let keyboard: KeyboardDrive;
  let limits: { maxLinearMps: number; maxAngularRadps: number };
  let held: ReadonlySet<DriveDirection>;

  beforeEach(() => {
    clock = new ManualClock();
    sent = [];
    limits = { maxLinearMps: 1, maxAngularRadps: 2 };
    commander = new DriveCommander((command) => sent.push(command), clock);
    keyboard = new KeyboardDrive(
      commander,
      () => limits,
      (directions) => (held = directions),
    );
  });

  it('sends at once on key down, at the control rate while held, and one zero on release', () => {
    keyboard.keyDown('KeyW', false);
    expect(sent).toEqual([{ linearMps: 0.5, angularRadps: 0 }]);
    clock.advance(1000);
    expect(sent).toHaveLength(11);
    keyboard.keyUp('KeyW');
    expect(sent.at(-1)).toEqual({ linearMps: 0, angularRadps: 0 });
    clock.advance(1000);
    expect(sent).toHaveLength(12);
  });

  it('follows the control rate', () => {
    commander.setRateHz(20);
    keyboard.keyDown('ArrowUp', false);
    clock.advance(500);
    expect(sent).toHaveLength(11);
  });

  it('ignores auto-repeat and sends the new command at once when a second key joins', () => {
    keyboard.keyDown('KeyW', false);
    keyboard.keyDown('KeyW', true);
    keyboard.keyDown('KeyW', true);
    expect(sent).toHaveLength(1);
    keyboard.keyDown('KeyA', false);
    expect(sent.at(-1)).toEqual({ linearMps: 0.5, angularRadps: 1 });
    keyboard.keyUp('KeyW');
    expect(sent.at(-1)).toEqual({ linearMps: 0, angularRadps: 1 });
    expect([...held]).toEqual(['left']);
  });

  it('sends exactly one zero when the last of several keys is released', () => {
    keyboard.keyDown('KeyW', false);
    keyboard.keyDown('ArrowUp', false);
    keyboard.keyUp('KeyW');
    expect(sent.at(-1)).toEqual({ linearMps: 0.5, angularRadps: 0 });
    keyboard.keyUp('ArrowUp');
    keyboard.keyUp('ArrowUp');
    const zeros = sent.filter((command) => command.linearMps === 0 && command.angularRadps === 0);
    expect(zeros).toHaveLength(1);
  });

  it('treats losing focus as releasing every key', () => {
    keyboard.keyDown('KeyS', false);
    keyboard.keyDown('KeyD', false);
    keyboard.releaseAll();
    expect(sent.at(-1)).toEqual({ linearMps: 0, angularRadps: 0 });
    expect(held.size).toBe(0);
    keyboard.releaseAll();
    clock.advance(500);
    expect(sent.filter((command) => command.linearMps === 0 && command.angularRadps === 0)).toHaveLength(1);
  });

  it('does not react to a repeat of a key pressed before the pad had focus', () => {
    expect(keyboard.keyDown('KeyW', true)).toBe(true);
    expect(sent).toHaveLength(0);
  });

  it('leaves other keys alone', () => {
    expect(keyboard.keyDown('KeyT', false)).toBe(false);
    expect(keyboard.keyUp('KeyT')).toBe(false);
    expect(sent).toHaveLength(0);
  });

  it('uses new speed limits from the next repeat on', () => {
    keyboard.keyDown('KeyW', false);
    limits = { maxLinearMps: 0.2, maxAngularRadps: 2 };
    keyboard.limitsChanged();
    expect(sent).toHaveLength(1);
    clock.advance(100);
    expect(sent.at(-1)).toEqual({ linearMps: 0.2, angularRadps: 0 });
  });
});

describe('DriveCommander sources', () => {
  it('lets the keyboard outrank the gamepad and stops only when both let go', () => {
    const clock = new ManualClock();
    const sent: DriveValue[] = [];
    const commander = new DriveCommander((command) => sent.push(command), clock);
    commander.set('gamepad', { linearMps: 0.3, angularRadps: 0 }, 'next-tick');
    expect(sent).toEqual([{ linearMps: 0.3, angularRadps: 0 }]);
    commander.set('keyboard', { linearMps: -0.5, angularRadps: 0 }, 'now');
    clock.advance(100);
    expect(sent.at(-1)).toEqual({ linearMps: -0.5, angularRadps: 0 });
    commander.set('keyboard', undefined, 'now');
    clock.advance(100);
    expect(sent.at(-1)).toEqual({ linearMps: 0.3, angularRadps: 0 });
    commander.set('gamepad', undefined, 'next-tick');
    expect(sent.at(-1)).toEqual({ linearMps: 0, angularRadps: 0 });
    const count = sent.length;
    clock.advance(1000);
    expect(sent).toHaveLength(count);
  });
});
