// One client subscription: its own throttle, queue and wire form. Messages wait here only while the
// client cannot take them (its socket is backed up, or the throttle has not elapsed); the queue
// keeps the newest `capacity` messages and drops the oldest, as rosbridge's queue_length does.
import type { OutgoingMessage, WireForm } from './outgoingMessage.ts';

export interface SubscriptionSettings {
  /** The subscribe op's `id`; undefined for an anonymous subscription. */
  id: string | undefined;
  topic: string;
  form: WireForm;
  /** Least time between two messages sent to this subscription (rosbridge `throttle_rate`). */
  throttleMs: number;
  /** Most messages kept waiting (rosbridge `queue_length`, or the topic's default). */
  capacity: number;
}

/** However many messages `capacity` allows, a queue holds no more than this (bar its newest one). */
export const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

interface Queued {
  message: OutgoingMessage;
  enqueuedMs: number;
}

export class SubscriptionQueue {
  private readonly queued: Queued[] = [];
  private queuedBytes = 0;
  private lastSentMs = -Infinity;
  /** Messages dropped because the client could not keep up. */
  droppedCount = 0;

  constructor(readonly settings: SubscriptionSettings) {}

  offer(message: OutgoingMessage, nowMs: number): void {
    this.queued.push({ message, enqueuedMs: nowMs });
    this.queuedBytes += message.approxBytes;
    while (this.queued.length > this.settings.capacity || (this.queuedBytes > MAX_QUEUED_BYTES && this.queued.length > 1)) {
      this.removeOldest();
      this.droppedCount++;
    }
  }

  /** When the oldest waiting message may go: undefined when nothing waits. */
  readyAtMs(): number | undefined {
    if (this.queued.length === 0) return undefined;
    return this.lastSentMs + this.settings.throttleMs;
  }

  /** When the oldest waiting message arrived (to serve subscriptions in arrival order). */
  oldestEnqueuedMs(): number | undefined {
    return this.queued[0]?.enqueuedMs;
  }

  take(nowMs: number): OutgoingMessage | undefined {
    const oldest = this.removeOldest();
    if (oldest !== undefined) this.lastSentMs = nowMs;
    return oldest;
  }

  size(): number {
    return this.queued.length;
  }

  private removeOldest(): OutgoingMessage | undefined {
    const oldest = this.queued.shift();
    if (oldest !== undefined) this.queuedBytes -= oldest.message.approxBytes;
    return oldest?.message;
  }
}
