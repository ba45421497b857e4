import { describe, expect, it } from 'vitest';
import { ConnectionGate } from './connectionGate.ts';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ConnectionGate', () => {
  it('runs exclusive work after the writes in flight, and holds new writes until it is done', async () => {
    const gate = new ConnectionGate();
    const events: string[] = [];
    const first = deferred();
    const writing = gate.run(async () => {
      await first.promise;
      events.push('write 1 done');
    });
    const work = deferred();
    const exclusive = gate.exclusive(async () => {
      events.push('exclusive start');
      await work.promise;
      events.push('exclusive done');
    });
    const later = gate.run(async () => void events.push('write 2'));
    await Promise.resolve();
    expect(events).toEqual([]);
    first.resolve();
    await writing;
    await new Promise(setImmediate);
    expect(events).toEqual(['write 1 done', 'exclusive start']);
    work.resolve();
    await Promise.all([exclusive, later]);
    expect(events).toEqual(['write 1 done', 'exclusive start', 'exclusive done', 'write 2']);
  });

  it('is not held by a failed write, and opens again after failed exclusive work', async () => {
    const gate = new ConnectionGate();
    await expect(gate.run(() => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    await expect(gate.exclusive(() => Promise.reject(new Error('no connection')))).rejects.toThrow('no connection');
    await expect(gate.run(async () => 'written')).resolves.toBe('written');
  });

  it('runs one exclusive at a time', async () => {
    const gate = new ConnectionGate();
    const order: string[] = [];
    const first = deferred();
    const a = gate.exclusive(async () => {
      order.push('a');
      await first.promise;
      order.push('a done');
    });
    const b = gate.exclusive(async () => void order.push('b'));
    await new Promise(setImmediate);
    expect(order).toEqual(['a']);
    first.resolve();
    await Promise.all([a, b]);
    expect(order).toEqual(['a', 'a done', 'b']);
  });
});
