// A Link that records what is published and delivers nothing: for unit tests of the command path,
// where the question is only what would have gone out on the wire.
import type { CoreAlert } from '../../main/core/alert.ts';
import type { Link, LinkPresence, TopicInfo } from '../../main/core/link.ts';
import type { Twist } from '../../main/core/messages.ts';

export class RecordingLink implements Link {
  readonly robotName = 'recording';
  readonly capabilities = { sendsCommands: true, simulated: false };
  readonly published: Array<{ topic: string; twist: Twist }> = [];
  /** Set false to act like a link that is down: publishes are dropped. */
  up = true;

  presence(): LinkPresence {
    return this.up ? 'present' : 'reconnecting';
  }
  alerts(): readonly CoreAlert[] {
    return [];
  }
  topics(): readonly TopicInfo[] {
    return [];
  }
  subscribe(): () => void {
    return () => undefined;
  }
  publish(topic: string, twist: Twist): boolean {
    if (!this.up) return false;
    this.published.push({ topic, twist });
    return true;
  }
  on(): () => void {
    return () => undefined;
  }
  async close(): Promise<void> {
    this.up = false;
  }
}
