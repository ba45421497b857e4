import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LEARNER_NICENESS } from '../core/runtime/backgroundPriority.ts';
import { HEAP_GROWING_PERCENT } from '../core/runtime/jsHeapTuning.ts';
import { heapLimitAfterCollection } from '../../test/support/v8HeapTrace.ts';
import { HEAP_TRIM_EVERY_MS } from './loopFirst.ts';

const MODULE = fileURLToPath(new URL('./loopFirst.ts', import.meta.url));

interface Kept {
  mainBefore: number;
  main: number;
  helpersBefore: number[];
  helpers: number[];
  tuned: boolean;
  /** Trims logged after each tick: one early, one a trim period on, one after the stop. */
  trims: number[];
}

// In a process of its own: lowering the helper threads of the test runner would slow every other test.
function keptAndStopped(): Kept {
  const script = `
    const { readdirSync, readFileSync } = require('node:fs');
    const nice = (tid) => { const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8'); return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]); };
    const helpers = () => readdirSync('/proc/self/task').map(Number).filter((tid) => tid !== process.pid);
    const listeners = new Set();
    const loop = { onTick: (listener) => (listeners.add(listener), () => listeners.delete(listener)) };
    let trimmed = 0;
    const log = { info() {}, debug(_fields, message) { if (message === 'C heap trimmed') trimmed++; } };
    let nowMs = 0;
    const tick = () => { listeners.forEach((listener) => listener()); return new Promise((resolve) => setImmediate(resolve)).then(() => trimmed); };
    import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(MODULE)}); }).then(async ({ keepTheLoopFirst, tuneSessionMemory }) => {
      const mainBefore = nice(process.pid);
      const helpersBefore = helpers().map(nice);
      const allocator = tuneSessionMemory(log);
      const stop = keepTheLoopFirst(loop, allocator, () => nowMs, log);
      const kept = { mainBefore, main: nice(process.pid), helpersBefore, helpers: helpers().map(nice), tuned: allocator.tuned };
      const trims = [await tick()];
      nowMs = ${HEAP_TRIM_EVERY_MS};
      trims.push(await tick());
      stop();
      nowMs = ${3 * HEAP_TRIM_EVERY_MS};
      trims.push(await tick());
      console.log(JSON.stringify({ ...kept, trims }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!) as Kept;
}

describe.runIf(process.platform === 'linux')('keepTheLoopFirst', () => {
  const kept = keptAndStopped();

  it('lowers the helper threads behind the loop’s and leaves the loop’s thread as it was', () => {
    expect(kept.main).toBe(kept.mainBefore);
    expect(kept.helpers.length).toBeGreaterThan(0);
    expect(kept.helpers.every((nice) => nice >= LEARNER_NICENESS)).toBe(true);
    // Unless the whole run was niced (every thread starts low), there were helpers to lower.
    if (kept.mainBefore < LEARNER_NICENESS) expect(kept.helpersBefore.some((nice) => nice < LEARNER_NICENESS)).toBe(true);
  });

  it('trims the C heap after a tick once a trim period has passed, and no more once stopped', () => {
    expect(kept.tuned).toBe(true);
    expect(kept.trims).toEqual([0, 1, 1]);
  });
});

describe('tuneSessionMemory', () => {
  it('fixes the JavaScript heap’s growth for the session’s process, as jsHeapTuning.ts sets it', () => {
    const { liveMb, limitMb } = heapLimitAfterCollection(MODULE, 'tuneSessionMemory');
    expect(limitMb).toBeDefined();
    // Without it V8 chose 4.2× in this process (jsHeapTuning.test.ts).
    expect(limitMb! / liveMb).toBeLessThan((1 + HEAP_GROWING_PERCENT / 100) * 1.3);
  });
});
