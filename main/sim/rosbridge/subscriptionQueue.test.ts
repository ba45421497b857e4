import { describe, expect, it } from 'vitest';
import { OutgoingMessage } from './outgoingMessage.ts';
import { MAX_QUEUED_BYTES, SubscriptionQueue, type SubscriptionSettings } from './subscriptionQueue.ts';

const settings = (overrides: Partial<SubscriptionSettings> = {}): SubscriptionSettings => ({
  id: 'sub',
  topic: '/imu',
  form: { compression: 'none', fragmentSize: undefined },
  throttleMs: 0,
  capacity: 3,
  ...overrides,
});

const message = (seq: number, bytes = 0) => new OutgoingMessage('/imu', { seq, data: new Uint8Array(bytes) }, `/imu:${seq}`);
const seqOf = (queued: OutgoingMessage | undefined) => queued?.msg.seq;

describe('SubscriptionQueue', () => {
  it('keeps the newest messages up to its capacity, oldest first, and counts what it dropped', () => {
    const queue = new SubscriptionQueue(settings({ capacity: 3 }));
    for (let seq = 1; seq <= 10; seq++) queue.offer(message(seq), seq);
    expect(queue.size()).toBe(3);
    expect(queue.droppedCount).toBe(7);
    expect([seqOf(queue.take(11)), seqOf(queue.take(11)), seqOf(queue.take(11))]).toEqual([8, 9, 10]);
    expect(queue.take(11)).toBeUndefined();
  });

  it('holds no more than its byte budget however long its queue may be, but always the newest message', () => {
    const queue = new SubscriptionQueue(settings({ capacity: 100 }));
    const bigBytes = MAX_QUEUED_BYTES / 2 + 1;
    for (let seq = 1; seq <= 5; seq++) queue.offer(message(seq, bigBytes), seq);
    expect(queue.size()).toBe(1);
    expect(seqOf(queue.take(6))).toBe(5);
    queue.offer(message(6, MAX_QUEUED_BYTES * 2), 7);
    expect(queue.size()).toBe(1);
  });

  it('is ready again only once the throttle has elapsed since its last send', () => {
    const queue = new SubscriptionQueue(settings({ throttleMs: 500 }));
    expect(queue.readyAtMs()).toBeUndefined();
    queue.offer(message(1), 0);
    expect(queue.readyAtMs()).toBe(-Infinity);
    queue.take(1000);
    queue.offer(message(2), 1100);
    expect(queue.readyAtMs()).toBe(1500);
    expect(queue.oldestEnqueuedMs()).toBe(1100);
  });
});
