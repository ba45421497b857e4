import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./loopFirst.ts', import.meta.url));

// In a process of its own: lowering the helper threads of the test runner would slow every other test.
function keptAndStopped(): { mainBefore: number; main: number; helpers: number[]; tuned: boolean; listenersKept: number; listenersAfter: number } {
  const script = `
    const { readdirSync, readFileSync } = require('node:fs');
    const nice = (tid) => { const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8'); return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]); };
    const helpers = () => readdirSync('/proc/self/task').map(Number).filter((tid) => tid !== process.pid);
    const listeners = new Set();
    const loop = { onTick: (listener) => (listeners.add(listener), () => listeners.delete(listener)) };
    const log = { info() {}, debug() {} };
    import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(MODULE)}); }).then(({ keepTheLoopFirst, tuneSessionAllocator }) => {
      const mainBefore = nice(process.pid);
      const allocator = tuneSessionAllocator(log);
      const stop = keepTheLoopFirst(loop, allocator, () => performance.now(), log);
      const kept = { mainBefore, main: nice(process.pid), helpers: helpers().map(nice), tuned: allocator.tuned, listenersKept: listeners.size };
      stop();
      console.log(JSON.stringify({ ...kept, listenersAfter: listeners.size }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
}

describe.runIf(process.platform === 'linux')('keepTheLoopFirst', () => {
  it('lowers the helper threads behind the loop’s and trims the C heap between ticks until stopped', () => {
    const { mainBefore, main, helpers, tuned, listenersKept, listenersAfter } = keptAndStopped();
    expect(main).toBe(mainBefore);
    expect(helpers.length).toBeGreaterThan(0);
    expect(helpers.every((nice) => nice >= 10)).toBe(true);
    expect(tuned).toBe(true);
    expect(listenersKept).toBe(1);
    expect(listenersAfter).toBe(0);
  });
});
