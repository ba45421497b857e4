// A link's subscribers, per topic: handing each message to the subscribers of its topic, and
// telling the link when a topic gains its first subscriber or loses its last (so a transport can
// subscribe on the wire only to what someone wants). A subscriber that throws is reported and the
// others still get the message: one broken panel must not cut the robot's stream to the rest.
// Where the link asks, the latest message of a topic is kept and handed to a subscriber who joins a
// topic already subscribed on the wire: a latched message (/robot_description, /tf_static, /map)
// arrives once per wire subscription, and the recorder joining after the scene must still get it.
import type { Unsubscribe } from '../core/link.ts';
import type { Received, RobotMessage } from '../core/messages.ts';

type MessageListener = (received: Received) => void;

export interface FanoutEvents {
  /** A subscriber threw while handed a message on this topic. */
  subscriberFailed(topic: string, error: unknown): void;
  /** The topic has its first subscriber. */
  firstSubscribed?(topic: string): void;
  /** The topic's last subscriber left. */
  lastUnsubscribed?(topic: string): void;
  /** Whether to keep this message for subscribers who join later (as a latched topic would give it them). */
  keepLatest?(received: Received): boolean;
}

export class TopicFanout {
  private readonly listeners = new Map<string, Set<MessageListener>>();
  /** topic → its latest message, where `keepLatest` asked for it; forgotten with the topic's last subscriber. */
  private readonly latest = new Map<string, Received>();

  constructor(private readonly events: FanoutEvents) {}

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    // Safe: each topic carries one message kind (the link's topics()), and the subscriber named it.
    const listener = onMessage as MessageListener;
    const listeners = this.listeners.get(topic) ?? new Set<MessageListener>();
    this.listeners.set(topic, listeners);
    listeners.add(listener);
    if (listeners.size === 1) this.events.firstSubscribed?.(topic);
    else this.handLatest(topic, listeners, listener);
    return () => {
      // After clear() the set is no longer the topic's: a late unsubscribe changes nothing.
      if (!listeners.delete(listener) || listeners.size > 0 || this.listeners.get(topic) !== listeners) return;
      this.listeners.delete(topic);
      this.latest.delete(topic);
      this.events.lastUnsubscribed?.(topic);
    };
  }

  wants(topic: string): boolean {
    return this.listeners.has(topic);
  }

  /** The topics that have subscribers. */
  topics(): IterableIterator<string> {
    return this.listeners.keys();
  }

  deliver(received: Received): void {
    const listeners = this.listeners.get(received.topic);
    if (listeners === undefined) return;
    if (this.events.keepLatest?.(received)) this.latest.set(received.topic, received);
    // A copy, so a subscriber that unsubscribes while being called does not skip its neighbour.
    for (const listener of [...listeners]) {
      try {
        listener(received);
      } catch (error) {
        this.events.subscriberFailed(received.topic, error);
      }
    }
  }

  /** Forgets every subscriber (the link closed); no lastUnsubscribed follows. */
  clear(): void {
    this.listeners.clear();
    this.latest.clear();
  }

  /** The topic's kept message, to a subscriber who joined after it came: on the next microtask, once `subscribe` has returned. */
  private handLatest(topic: string, listeners: Set<MessageListener>, listener: MessageListener): void {
    const kept = this.latest.get(topic);
    if (kept === undefined) return;
    queueMicrotask(() => {
      // Still subscribed, and nothing newer came meanwhile (that one reached it through deliver).
      if (!listeners.has(listener) || this.latest.get(topic) !== kept) return;
      try {
        listener(kept);
      } catch (error) {
        this.events.subscriberFailed(topic, error);
      }
    });
  }
}
