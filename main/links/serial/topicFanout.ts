// Subscribers per topic, and handing each message to the subscribers of its topic.
import type { Unsubscribe } from '../link.ts';
import type { Received, RobotMessage } from '../messages.ts';

type MessageListener = (received: Received) => void;

export class TopicFanout {
  private readonly listeners = new Map<string, Set<MessageListener>>();

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    // Safe: each topic carries one message kind (the link's topics()), and the subscriber named it.
    const listener = onMessage as MessageListener;
    const listeners = this.listeners.get(topic) ?? new Set<MessageListener>();
    this.listeners.set(topic, listeners);
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  wants(topic: string): boolean {
    return (this.listeners.get(topic)?.size ?? 0) > 0;
  }

  deliver(received: Received): void {
    const listeners = this.listeners.get(received.topic);
    if (!listeners) return;
    // A copy, so a subscriber that unsubscribes while being called does not skip its neighbour.
    for (const listener of [...listeners]) listener(received);
  }

  clear(): void {
    this.listeners.clear();
  }
}
