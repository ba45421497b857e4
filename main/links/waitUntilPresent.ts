// Waits for a link to reach the robot, and otherwise says why not (its alerts) when time runs out.
import type { Link } from '../core/link.ts';

export class LinkUnreachable extends Error {
  override readonly name = 'LinkUnreachable';
}

export function waitUntilPresent(link: Link, timeoutMs: number): Promise<void> {
  if (link.presence() === 'present') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      const why = link.alerts().map((alert) => `${alert.message}${alert.hint ? ` (${alert.hint})` : ''}`);
      reject(new LinkUnreachable(`${link.robotName} not reached within ${timeoutMs} ms (${link.presence()})${why.length > 0 ? `: ${why.join('; ')}` : ''}`));
    }, timeoutMs);
    const stop = link.on('presence', (presence) => {
      if (presence === 'present') {
        clearTimeout(timer);
        stop();
        resolve();
      } else if (presence === 'closed') {
        clearTimeout(timer);
        stop();
        reject(new LinkUnreachable(`${link.robotName}: the link was closed before it reached the robot`));
      }
    });
  });
}
