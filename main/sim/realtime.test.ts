import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import { createSimLink } from './lockstepLink.ts';
import { startRealtime } from './realtime.ts';

describe('startRealtime', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('advances the robot with the wall clock, and not after it is stopped', () => {
    const link = createSimLink({ epochMs: Date.now(), camera: { widthPx: 16, heightPx: 12 } });
    const stop = startRealtime(link, { nowMs: () => Date.now() });
    vi.advanceTimersByTime(1000);
    expect(link.robot.simTimeSecs()).toBeCloseTo(1, 1);
    expect(Math.abs(link.clockMs() - Date.now())).toBeLessThanOrEqual(10);
    stop();
    vi.advanceTimersByTime(1000);
    expect(link.robot.simTimeSecs()).toBeCloseTo(1, 1);
  });

  it('skips ahead after a stall, keeps stamps on the wall clock and warns the operator', () => {
    const link = createSimLink({ epochMs: Date.now(), camera: { widthPx: 16, heightPx: 12 } });
    let nowMs = Date.now();
    const stop = startRealtime(link, { nowMs: () => nowMs });
    nowMs += 5000;
    vi.advanceTimersByTime(10);
    expect(link.robot.simTimeSecs()).toBeLessThan(0.05);
    expect(link.clockMs()).toBeGreaterThan(Date.now() + 4900);
    expect(link.alerts().map((alert) => alert.key)).toEqual(['sim-behind']);
    stop();
  });

  it('puts the link in error, with an alert, when the simulation throws', () => {
    const link = createSimLink({ epochMs: Date.now() });
    link.subscribe(DEFAULT_TOPIC_MAP.imu, () => {
      throw new Error('subscriber broke');
    });
    startRealtime(link, { nowMs: () => Date.now() });
    vi.advanceTimersByTime(100);
    expect(link.presence()).toBe('error');
    expect(link.alerts()).toEqual([expect.objectContaining({ key: 'sim-failed', severity: 'error' })]);
    expect(link.alerts()[0]?.message).toContain('subscriber broke');
  });
});
