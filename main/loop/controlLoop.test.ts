// The control loop's timer: how late each tick started, and the ticks a busy event loop held up.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HeldPerception } from '../../test/fakes/heldPerception.ts';
import { RecordingLink } from '../../test/fakes/recordingLink.ts';
import { ReactiveBaselinePolicy } from '../learning/reactiveBaselinePolicy.ts';
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import { SafetyFilter } from '../safety/safetyFilter.ts';
import { ControlLoop } from './controlLoop.ts';

function loopAt10Hz(): ControlLoop {
  const parts = {
    link: new RecordingLink(),
    topics: DEFAULT_TOPIC_MAP,
    perception: new HeldPerception(),
    policy: new ReactiveBaselinePolicy(),
    safety: new SafetyFilter(),
  };
  return new ControlLoop(parts, { rateHz: 10 });
}

describe('ControlLoop timer lateness', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports how late each timed tick started and counts one held up past its period', async () => {
    const loop = loopAt10Hz();
    const latenessMs: Array<number | undefined> = [];
    loop.onTick((report) => latenessMs.push(report.startLatenessMs));
    loop.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(latenessMs).toEqual([0]);
    expect(loop.ticksStartedLate()).toBe(0);

    // The event loop is busy for 250 ms: the wall clock moves on, the timer fires only afterwards.
    vi.setSystemTime(Date.now() + 250);
    await vi.advanceTimersByTimeAsync(100);
    expect(latenessMs).toEqual([0, 250]);
    expect(loop.ticksStartedLate()).toBe(1);
    // The slots it went past are skipped, never run back to back.
    expect(loop.ticksSkipped()).toBe(2);

    await vi.advanceTimersByTimeAsync(100);
    expect(latenessMs.at(-1)).toBe(0);
    expect(loop.ticksStartedLate()).toBe(1);
    await loop.close();
  });

  it('gives a tick called directly no lateness', async () => {
    const loop = loopAt10Hz();
    const report = await loop.tick();
    expect(report.startLatenessMs).toBeUndefined();
    await loop.close();
  });
});
