import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('./helperThreads.ts', import.meta.url));

// In a process of its own: lowering the helper threads of the test runner would slow every other test.
function niceAfterLowering(): { mainBefore: number; main: number; before: number[]; after: number[]; lowered: number } {
  const script = `
    const { readdirSync, readFileSync } = require('node:fs');
    const nice = (tid) => { const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8'); return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]); };
    const helpers = () => readdirSync('/proc/self/task').map(Number).filter((tid) => tid !== process.pid);
    import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(MODULE)}); }).then(({ lowerHelperThreads }) => {
      const mainBefore = nice(process.pid);
      const before = helpers().map(nice);
      const { lowered, problem } = lowerHelperThreads();
      if (problem) throw new Error(problem);
      console.log(JSON.stringify({ mainBefore, main: nice(process.pid), before, after: helpers().map(nice), lowered }));
    });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim().split('\n').pop()!);
}

describe.runIf(process.platform === 'linux')('lowerHelperThreads', () => {
  it('lowers every thread but the main one, where the loop runs', () => {
    const { mainBefore, main, before, after, lowered } = niceAfterLowering();
    expect(after.length).toBeGreaterThan(0); // V8's platform threads, at least
    expect(lowered).toBe(before.filter((nice) => nice < 10).length);
    expect(after.every((nice) => nice >= 10)).toBe(true);
    expect(main).toBe(mainBefore);
  });

  it('refuses from a worker thread, where “every other thread” would include the loop’s', async () => {
    const worker = new Worker(
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(MODULE)}); })
         .then(({ lowerHelperThreads }) => require('node:worker_threads').parentPort.postMessage(lowerHelperThreads()));`,
      { eval: true },
    );
    const report = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(report).toEqual({ lowered: 0, problem: 'helper threads are lowered only from the main thread, where the loop runs' });
  });
});
