// A link's subscribers, per topic: handing each message to the subscribers of its topic, and
// telling the link when a topic gains its first subscriber or loses its last (so a transport can
// subscribe on the wire only to what someone wants). A subscriber that throws is reported and the
// others still get the message: one broken panel must not cut the robot's stream to the rest.
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
}

export class TopicFanout {
  private readonly listeners = new Map<string, Set<MessageListener>>();

  constructor(private readonly events: FanoutEvents) {}

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    // Safe: each topic carries one message kind (the link's topics()), and the subscriber named it.
    const listener = onMessage as MessageListener;
    const listeners = this.listeners.get(topic) ?? new Set<MessageListener>();
    this.listeners.set(topic, listeners);
    listeners.add(listener);
    if (listeners.size === 1) this.events.firstSubscribed?.(topic);
    return () => {
      // After clear() the set is no longer the topic's: a late unsubscribe changes nothing.
      if (!listeners.delete(listener) || listeners.size > 0 || this.listeners.get(topic) !== listeners) return;
      this.listeners.delete(topic);
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
  }
}
