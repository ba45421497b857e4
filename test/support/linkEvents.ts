// Waits on a Link's events (presence, alerts, messages) with a deadline, so the tests of every
// transport synchronise on what happened instead of sleeping.
import type { CoreAlert } from '../../main/core/alert.ts';
import type { Link, LinkPresence } from '../../main/core/link.ts';
import type { Received, RobotMessage } from '../../main/core/messages.ts';

/**
 * Resolves with the first value `start` hands to `resolve`; `start` subscribes to something and
 * returns how to unsubscribe, which happens on success and on timeout alike.
 */
export function waitFor<T>(what: string, start: (resolve: (value: T) => void) => () => void, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    let settled = false;
    let stop: (() => void) | undefined;
    const timer = setTimeout(() => {
      settled = true;
      stop?.();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    stop = start((value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // `start` may resolve before it has returned its unsubscribe: stop on the next microtask.
      queueMicrotask(() => stop?.());
      resolve(value);
    });
    if (settled) stop();
  });
}

export function waitForPresence(link: Link, wanted: LinkPresence, timeoutMs = 5000): Promise<void> {
  return waitFor(
    `presence ${wanted} (it was ${link.presence()})`,
    (resolve) => {
      if (link.presence() === wanted) resolve();
      return link.on('presence', (presence) => {
        if (presence === wanted) resolve();
      });
    },
    timeoutMs,
  );
}

export function waitForAlert(link: Link, match: (alert: CoreAlert) => boolean, timeoutMs = 5000): Promise<CoreAlert> {
  return waitFor(
    'an alert',
    (resolve) => {
      const already = link.alerts().find(match);
      if (already !== undefined) resolve(already);
      return link.on('alerts', (alerts) => {
        const found = alerts.find(match);
        if (found !== undefined) resolve(found);
      });
    },
    timeoutMs,
  );
}

/** The next message on `topic` that `accept` takes (subscribing only while waiting). */
export function waitForMessage<M extends RobotMessage>(
  link: Link,
  topic: string,
  accept: (received: Received<M>) => boolean = () => true,
  timeoutMs = 5000,
): Promise<Received<M>> {
  return waitFor(
    `a message on ${topic}`,
    (resolve) =>
      link.subscribe<M>(topic, (received) => {
        if (accept(received)) resolve(received);
      }),
    timeoutMs,
  );
}

/** The next `count` messages on `topic` that `accept` takes. */
export function nextMessages<M extends RobotMessage>(
  link: Link,
  topic: string,
  count: number,
  accept: (received: Received<M>) => boolean = () => true,
  timeoutMs = 5000,
): Promise<Array<Received<M>>> {
  return waitFor(
    `${count} messages on ${topic}`,
    (resolve) => {
      const received: Array<Received<M>> = [];
      return link.subscribe<M>(topic, (message) => {
        if (!accept(message)) return;
        received.push(message);
        if (received.length === count) resolve(received);
      });
    },
    timeoutMs,
  );
}
