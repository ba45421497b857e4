import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RealtimeStepper, type RealtimeEvents } from './realtimeStepper.ts';

function recorder() {
  const record = { steps: 0, skippedSecs: [] as number[], failures: [] as unknown[] };
  const events: RealtimeEvents = {
    step: () => {
      record.steps++;
    },
    skipped: (skippedSecs) => record.skippedSecs.push(skippedSecs),
    failed: (error) => record.failures.push(error),
  };
  return { record, events };
}

describe('RealtimeStepper', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('steps as fast as the wall clock goes, and not after it is stopped', () => {
    const { record, events } = recorder();
    const stepper = new RealtimeStepper(events, 0, { nowMs: () => Date.now() }, 1_000_000);
    stepper.start();
    vi.advanceTimersByTime(1000);
    expect(record.steps).toBeGreaterThanOrEqual(99);
    expect(record.steps).toBeLessThanOrEqual(100);
    expect(stepper.wallMsAt(2.5)).toBe(1_002_500);
    stepper.stop();
    vi.advanceTimersByTime(1000);
    expect(record.steps).toBeLessThanOrEqual(100);
  });

  it('skips ahead after a stall instead of racing, and moves the clock so stamps stay on the wall clock', () => {
    const { record, events } = recorder();
    let nowMs = 0;
    const stepper = new RealtimeStepper(events, 10, { nowMs: () => nowMs }, 50_000);
    expect(stepper.wallMsAt(10)).toBe(50_000);
    stepper.start();
    nowMs += 5000;
    vi.advanceTimersByTime(10);
    expect(record.steps).toBe(1);
    expect(record.skippedSecs).toHaveLength(1);
    expect(record.skippedSecs[0]).toBeCloseTo(4.99, 6);
    // 10.01 s of simulated time now stands for 50 s + 5 s of wall clock.
    expect(stepper.wallMsAt(10.01)).toBeCloseTo(55_000, 6);
    stepper.stop();
  });

  it('stops and reports a step that throws', () => {
    const { record, events } = recorder();
    let nowMs = 0;
    const stepper = new RealtimeStepper(
      {
        ...events,
        step: () => {
          throw new Error('physics exploded');
        },
      },
      0,
      { nowMs: () => nowMs },
    );
    stepper.start();
    nowMs += 20;
    vi.advanceTimersByTime(10);
    expect(record.failures).toEqual([new Error('physics exploded')]);
    nowMs += 20;
    vi.advanceTimersByTime(100);
    expect(record.failures).toHaveLength(1);
  });

  it('reads its clock as now, not as the last step, which lags the wall clock', () => {
    const { events } = recorder();
    let nowMs = 0;
    const stepper = new RealtimeStepper(events, 0, { nowMs: () => nowMs }, 1_000_000);
    stepper.start();
    nowMs += 15;
    vi.advanceTimersByTime(10); // one 10 ms step; 5 ms still owed
    expect(stepper.clockMsNow(0.01)).toBeCloseTo(1_000_015, 6);
    nowMs += 3; // the process is busy: no timer has fired since
    expect(stepper.clockMsNow(0.01)).toBeCloseTo(1_000_018, 6);
    stepper.stop();
    expect(stepper.clockMsNow(0.01)).toBe(stepper.wallMsAt(0.01));
  });
});
