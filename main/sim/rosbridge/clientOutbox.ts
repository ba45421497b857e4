// Everything one client is sent. Topic messages wait in their subscription's bounded queue until
// the throttle allows and the socket has room (less than `highWaterBytes` still unwritten), so a
// slow client loses old messages instead of growing a backlog; waiting queues are served oldest
// message first, so a camera cannot starve the IMU. Replies (service responses, status) go out at
// once; a client that stops reading them while it keeps sending requests is disconnected.
import type { WebSocket } from 'ws';
import type { OutgoingMessage } from './outgoingMessage.ts';
import { SubscriptionQueue, type SubscriptionSettings } from './subscriptionQueue.ts';
import type { WireFrame } from './wireEncoding.ts';

export interface OutboxOptions {
  /** Topic messages wait while more than this is still waiting to be written to the socket. */
  highWaterBytes: number;
  /** A client with this much of its replies unwritten is not reading them: it is disconnected. */
  replyLimitBytes: number;
  nowMs: () => number;
}

export const DEFAULT_OUTBOX_OPTIONS: Readonly<OutboxOptions> = Object.freeze({
  highWaterBytes: 2 * 1024 * 1024,
  replyLimitBytes: 16 * 1024 * 1024,
  nowMs: () => performance.now(),
});

export interface OutboxStats {
  subscriptions: number;
  queuedMessages: number;
  droppedMessages: number;
  bufferedBytes: number;
}

/** WebSocket close code 1008: policy violation. */
const CLOSE_POLICY = 1008;

export class ClientOutbox {
  private readonly queues = new Map<string, SubscriptionQueue>();
  private timer: NodeJS.Timeout | undefined;
  private timerDueMs = Infinity;
  private droppedByRemovedQueues = 0;
  private disposed = false;
  private readonly onFlushed = (error?: Error): void => {
    if (error === undefined) this.pump();
  };

  constructor(
    private readonly socket: WebSocket,
    /** A message that could not be encoded (a bug): it is skipped, and this says so. */
    private readonly onEncodingFailed: (topic: string, error: unknown) => void,
    private readonly options: OutboxOptions = DEFAULT_OUTBOX_OPTIONS,
  ) {}

  /**
   * Adds a subscription, or replaces the one with the same topic and id (its waiting messages go).
   * A latched topic's last message is the new subscription's first, and only its own.
   */
  subscribe(settings: SubscriptionSettings, latched?: OutgoingMessage): void {
    this.removeQueue(queueKey(settings.topic, settings.id));
    const queue = new SubscriptionQueue(settings);
    this.queues.set(queueKey(settings.topic, settings.id), queue);
    if (latched === undefined || this.disposed) return;
    queue.offer(latched, this.options.nowMs());
    this.pump();
  }

  /** Removes one subscription (by id) or all of a topic's; returns how many went. */
  unsubscribe(topic: string, id: string | undefined): number {
    if (id !== undefined) return this.removeQueue(queueKey(topic, id)) ? 1 : 0;
    let removed = 0;
    for (const [key, queue] of [...this.queues]) {
      if (queue.settings.topic === topic && this.removeQueue(key)) removed++;
    }
    return removed;
  }

  hasSubscription(topic: string, id: string | undefined): boolean {
    return this.queues.has(queueKey(topic, id));
  }

  subscriptionCount(): number {
    return this.queues.size;
  }

  subscribes(topic: string): boolean {
    for (const queue of this.queues.values()) if (queue.settings.topic === topic) return true;
    return false;
  }

  offer(message: OutgoingMessage): void {
    if (this.disposed) return;
    const nowMs = this.options.nowMs();
    let offered = false;
    for (const queue of this.queues.values()) {
      if (queue.settings.topic !== message.topic) continue;
      queue.offer(message, nowMs);
      offered = true;
    }
    if (offered) this.pump();
  }

  /** Sends a reply now (they are small and few); see the class comment for a client that never reads. */
  sendReply(text: string): void {
    if (this.disposed || this.socket.readyState !== this.socket.OPEN) return;
    if (this.socket.bufferedAmount > this.options.replyLimitBytes) {
      this.socket.close(CLOSE_POLICY, 'not reading replies');
      return;
    }
    this.socket.send(text, this.onFlushed);
  }

  stats(): OutboxStats {
    let queuedMessages = 0;
    let droppedMessages = this.droppedByRemovedQueues;
    for (const queue of this.queues.values()) {
      queuedMessages += queue.size();
      droppedMessages += queue.droppedCount;
    }
    return { subscriptions: this.queues.size, queuedMessages, droppedMessages, bufferedBytes: this.socket.bufferedAmount };
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
    this.queues.clear();
  }

  private pump(): void {
    if (this.disposed || this.socket.readyState !== this.socket.OPEN) return;
    const nowMs = this.options.nowMs();
    while (this.socket.bufferedAmount < this.options.highWaterBytes) {
      const queue = this.nextReady(nowMs);
      const message = queue?.take(nowMs);
      if (queue === undefined || message === undefined) break;
      let frames: readonly WireFrame[];
      try {
        frames = message.frames(queue.settings.form);
      } catch (error) {
        // pump() runs inside the physics step and in timers: one bad message must stop neither.
        this.onEncodingFailed(message.topic, error);
        continue;
      }
      this.sendFrames(frames);
    }
    this.scheduleThrottled(nowMs);
  }

  private sendFrames(frames: readonly WireFrame[]): void {
    // Only the last frame reports back: one wake-up per message, however many fragments it took.
    frames.forEach((frame, index) => {
      const binary = typeof frame !== 'string';
      this.socket.send(frame, { binary }, index === frames.length - 1 ? this.onFlushed : undefined);
    });
  }

  /** The ready queue whose oldest message has waited longest. */
  private nextReady(nowMs: number): SubscriptionQueue | undefined {
    let best: SubscriptionQueue | undefined;
    let bestEnqueuedMs = Infinity;
    for (const queue of this.queues.values()) {
      const readyAtMs = queue.readyAtMs();
      const enqueuedMs = queue.oldestEnqueuedMs();
      if (readyAtMs === undefined || enqueuedMs === undefined || readyAtMs > nowMs) continue;
      if (enqueuedMs < bestEnqueuedMs) {
        best = queue;
        bestEnqueuedMs = enqueuedMs;
      }
    }
    return best;
  }

  /** Wakes up when the earliest throttled queue may send (ready queues wait for the socket instead). */
  private scheduleThrottled(nowMs: number): void {
    let dueMs = Infinity;
    for (const queue of this.queues.values()) {
      const readyAtMs = queue.readyAtMs();
      if (readyAtMs !== undefined && readyAtMs > nowMs) dueMs = Math.min(dueMs, readyAtMs);
    }
    if (dueMs === Infinity || dueMs >= this.timerDueMs) return;
    this.clearTimer();
    this.timerDueMs = dueMs;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerDueMs = Infinity;
        this.pump();
      },
      Math.max(0, Math.ceil(dueMs - nowMs)),
    );
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDueMs = Infinity;
  }

  private removeQueue(key: string): boolean {
    const queue = this.queues.get(key);
    if (queue === undefined) return false;
    this.droppedByRemovedQueues += queue.droppedCount;
    return this.queues.delete(key);
  }
}

function queueKey(topic: string, id: string | undefined): string {
  return id === undefined ? `${topic}\u0000` : `${topic}\u0000${id}`;
}
