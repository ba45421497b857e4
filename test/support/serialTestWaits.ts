// Waiting on a link's events with a deadline, instead of sleeping and hoping (serial tests).
import type { Link, LinkAlert, LinkPresence } from '../../main/links/link.ts';
import type { Received, RobotMessage } from '../../main/links/messages.ts';

export function waitFor<T>(describe: string, subscribe: (resolve: (value: T) => void) => () => void, timeoutMs = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let unsubscribe: (() => void) | undefined;
    const timer = setTimeout(() => {
      settled = true;
      unsubscribe?.();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${describe}`));
    }, timeoutMs);
    unsubscribe = subscribe((value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // The subscription may call back before subscribe() has returned its unsubscribe.
      queueMicrotask(() => unsubscribe?.());
      resolve(value);
    });
  });
}

export function waitForPresence(link: Link, presence: LinkPresence, timeoutMs = 5000): Promise<LinkPresence> {
  if (link.presence() === presence) return Promise.resolve(presence);
  return waitFor(`presence ${presence} (now ${link.presence()})`, (resolve) => link.on('presence', (now) => now === presence && resolve(now)), timeoutMs);
}

export function waitForAlert(link: Link, matches: (alert: LinkAlert) => boolean, timeoutMs = 5000): Promise<LinkAlert> {
  const already = link.alerts().find(matches);
  if (already) return Promise.resolve(already);
  return waitFor(
    'an alert',
    (resolve) =>
      link.on('alerts', (alerts) => {
        const found = alerts.find(matches);
        if (found) resolve(found);
      }),
    timeoutMs,
  );
}

export function waitForMessage<M extends RobotMessage>(
  link: Link,
  topic: string,
  matches: (received: Received<M>) => boolean = () => true,
  timeoutMs = 5000,
): Promise<Received<M>> {
  return waitFor(`a message on ${topic}`, (resolve) => link.subscribe<M>(topic, (received) => matches(received) && resolve(received)), timeoutMs);
}
