import { describe, expect, it } from 'vitest';
import { globalKeyAction, type KeyPress } from './globalKeys.ts';

function press(key: string, code: string, extra: Partial<KeyPress> = {}): KeyPress {
  return { key, code, repeat: false, ctrlKey: false, metaKey: false, altKey: false, inEditableField: false, ...extra };
}

describe('globalKeyAction', () => {
  it('e-stops on Space or Escape everywhere, even typing or repeating', () => {
    expect(globalKeyAction(press(' ', 'Space'))).toBe('estop');
    expect(globalKeyAction(press('Escape', 'Escape', { inEditableField: true }))).toBe('estop');
    expect(globalKeyAction(press(' ', 'Space', { repeat: true, ctrlKey: true }))).toBe('estop');
  });

  it('takes over with T and hands back with H', () => {
    expect(globalKeyAction(press('t', 'KeyT'))).toBe('take-over');
    expect(globalKeyAction(press('H', 'KeyH'))).toBe('hand-back');
  });

  it('leaves T and H alone while typing, with modifiers, or on auto-repeat', () => {
    expect(globalKeyAction(press('t', 'KeyT', { inEditableField: true }))).toBeUndefined();
    expect(globalKeyAction(press('h', 'KeyH', { ctrlKey: true }))).toBeUndefined();
    expect(globalKeyAction(press('t', 'KeyT', { repeat: true }))).toBeUndefined();
  });

  it('rates good with G, bad with B and undoes with U, but not while typing, with modifiers or on auto-repeat', () => {
    expect(['g', 'B', 'u'].map((key) => globalKeyAction(press(key, `Key${key.toUpperCase()}`)))).toEqual(['rate-good', 'rate-bad', 'undo']);
    expect(globalKeyAction(press('g', 'KeyG', { inEditableField: true }))).toBeUndefined();
    expect(globalKeyAction(press('b', 'KeyB', { repeat: true }))).toBeUndefined();
    expect(globalKeyAction(press('u', 'KeyU', { metaKey: true }))).toBeUndefined();
  });
});
