import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

/** A thread's nice value, from /proc/PID/task/TID/stat (field 19). */
function niceOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe.runIf(process.platform === 'linux')('runBehindTheLoop', () => {
  it('lowers only the calling thread, not the loop’s', async () => {
    const mainNice = niceOf('/proc/thread-self/stat');
    const module = fileURLToPath(new URL('./backgroundPriority.ts', import.meta.url));
    // A worker thread (as the learners are), loading the module through tsx as their bootstraps do.
    const worker = new Worker(
      `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(module)}); }).then(({ runBehindTheLoop }) => {
         const problem = runBehindTheLoop();
         const stat = require('node:fs').readFileSync('/proc/thread-self/stat', 'utf8');
         require('node:worker_threads').parentPort.postMessage({ problem, nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) });
       });`,
      { eval: true },
    );
    const reply = await new Promise<{ problem: string | undefined; nice: number }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(reply.problem).toBeUndefined();
    expect(reply.nice).toBe(Math.min(19, Math.max(10, mainNice)));
    expect(niceOf('/proc/thread-self/stat')).toBe(mainNice);
  });
});
