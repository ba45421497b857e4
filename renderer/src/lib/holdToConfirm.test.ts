import { describe, expect, it } from 'vitest';
import { ESTOP_RELEASE_HOLD_MS } from './contract.ts';
import { HoldToConfirm } from './holdToConfirm.ts';

describe('HoldToConfirm', () => {
  it('fires once when held for the full time, reporting how long', () => {
    const hold = new HoldToConfirm(ESTOP_RELEASE_HOLD_MS);
    hold.press(5000);
    expect(hold.progress(5500)).toBeCloseTo(0.5);
    expect(hold.poll(5999)).toBeUndefined();
    expect(hold.poll(6016)).toBe(1016);
    expect(hold.poll(6100)).toBeUndefined();
    expect(hold.release(6200)).toBeUndefined();
    expect(hold.isHeld).toBe(false);
  });

  it('cancels when released early', () => {
    const hold = new HoldToConfirm(1000);
    hold.press(0);
    expect(hold.release(999)).toBeUndefined();
    expect(hold.progress(2000)).toBe(0);
    expect(hold.poll(2000)).toBeUndefined();
  });

  it('completes on release if no poll caught the moment', () => {
    const hold = new HoldToConfirm(1000);
    hold.press(0);
    expect(hold.release(1200)).toBe(1200);
  });

  it('ignores a second press while held and starts over after a cancel', () => {
    const hold = new HoldToConfirm(1000);
    hold.press(0);
    hold.press(800);
    expect(hold.poll(1000)).toBe(1000);
    hold.cancel();
    hold.press(3000);
    expect(hold.progress(3250)).toBeCloseTo(0.25);
    expect(hold.poll(3999)).toBeUndefined();
  });
});
