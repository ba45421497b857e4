// A link's presence and the two events every Link emits (presence changes and the alert list),
// kept in one place so each transport only decides when its presence changes.
import type { CoreAlert } from '../core/alert.ts';
import type { LinkEvents, LinkPresence, Unsubscribe } from '../core/link.ts';

export class LinkEventHub {
  private readonly presenceListeners = new Set<LinkEvents['presence']>();
  private readonly alertListeners = new Set<LinkEvents['alerts']>();

  constructor(private current: LinkPresence) {}

  presence(): LinkPresence {
    return this.current;
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    // The cast only restates what the event name already proves about the listener's type.
    const listeners = (event === 'presence' ? this.presenceListeners : this.alertListeners) as Set<LinkEvents[E]>;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  /** Moves to a presence and tells the listeners; nothing happens if the link is there already. */
  setPresence(presence: LinkPresence): void {
    if (presence === this.current) return;
    this.current = presence;
    // Copies, so a listener that unsubscribes while being called does not skip its neighbour.
    for (const listener of [...this.presenceListeners]) listener(presence);
  }

  emitAlerts(alerts: readonly CoreAlert[]): void {
    for (const listener of [...this.alertListeners]) listener(alerts);
  }

  /** Forgets every listener (the link closed). */
  clear(): void {
    this.presenceListeners.clear();
    this.alertListeners.clear();
  }
}
