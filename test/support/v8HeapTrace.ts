// V8's own trace of one process: what survives a forced full collection, and the old generation's
// limit at which V8 next starts marking. Tests of the JavaScript heap's tuning read it.
import { execFileSync } from 'node:child_process';

/**
 * Runs `tune()` from `modulePath` (through tsx) in a traced process of its own, keeps ~75 MB alive,
 * collects, then keeps more until V8 starts marking again. Sizes in MB, as V8's trace gives them.
 */
export function heapLimitAfterCollection(modulePath: string, tune: string): { liveMb: number; limitMb: number | undefined } {
  const script = `
    const keep = () => { const kept = []; for (let i = 0; i < 600000; i++) kept.push({ a: i, b: [i, i] }); return kept; };
    import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(modulePath)}); }).then((module) => {
      module[${JSON.stringify(tune)}]({ info() {} });
      const live = keep();
      globalThis.gc();
      console.log('COLLECTED');
      for (let i = 0; i < 2500000; i++) live.push({ a: i });
    });`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--trace-gc', '--trace-incremental-marking', '-e', script], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 ** 2,
  });
  const lines = out.split('\n');
  const collected = lines.indexOf('COLLECTED');
  if (collected < 0) throw new Error(`the traced process did not reach its collection:\n${out.slice(-2000)}`);
  const forced = lines.slice(0, collected).findLast((line) => line.includes('Mark-Compact'));
  const liveMb = Number(/-> ([\d.]+) \(/.exec(forced ?? '')?.[1]);
  const start = lines.slice(collected).find((line) => line.includes('[IncrementalMarking] Start ('));
  const limit = /v8: [\d.]+MB \/ ([\d.]+)MB/.exec(start ?? '')?.[1];
  return { liveMb, limitMb: limit === undefined ? undefined : Number(limit) };
}
