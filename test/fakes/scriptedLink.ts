// A Link whose robot the test plays by hand: it delivers the messages the test hands it, changes
// presence and alerts on request, and records what was published and whether it was closed.
import type { CoreAlert } from '../../main/core/alert.ts';
import type { Link, LinkPresence, TopicInfo, Unsubscribe } from '../../main/core/link.ts';
import { LinkEventHub } from '../../main/links/linkEventHub.ts';
import type { Received, RobotMessage, Twist } from '../../main/core/messages.ts';
import { TopicFanout } from '../../main/links/topicFanout.ts';

export class ScriptedLink implements Link {
  readonly capabilities = { sendsCommands: true, simulated: false };
  readonly published: Array<{ topic: string; twist: Twist }> = [];
  closed = false;
  private currentAlerts: readonly CoreAlert[] = [];
  private readonly events: LinkEventHub;
  private readonly fanout = new TopicFanout({
    subscriberFailed: (_topic, error) => {
      throw error;
    },
  });

  constructor(
    readonly robotName: string,
    presence: LinkPresence = 'present',
    private readonly offered: readonly TopicInfo[] = [],
  ) {
    this.events = new LinkEventHub(presence);
  }

  /** Topics with at least one subscriber, as the robot would see them on the wire. */
  subscribedTopics(): string[] {
    return [...this.fanout.topics()].filter((topic) => this.fanout.wants(topic)).sort();
  }

  deliver(topic: string, msg: RobotMessage, receiveTimeMs = 0): void {
    this.fanout.deliver({ topic, receiveTimeMs, sourceTimeMs: receiveTimeMs, msg });
  }

  /** A message as a transport hands it over, with its source time, raw fields and ROS 2 origin. */
  deliverReceived(received: Received): void {
    this.fanout.deliver(received);
  }

  setPresence(presence: LinkPresence): void {
    this.events.setPresence(presence);
  }

  raise(alerts: readonly CoreAlert[]): void {
    this.currentAlerts = alerts;
    this.events.emitAlerts(alerts);
  }

  presence(): LinkPresence {
    return this.events.presence();
  }
  alerts(): readonly CoreAlert[] {
    return this.currentAlerts;
  }
  topics(): readonly TopicInfo[] {
    return this.offered;
  }
  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    return this.fanout.subscribe(topic, onMessage);
  }
  publish(topic: string, twist: Twist): boolean {
    if (this.closed || this.presence() !== 'present') return false;
    this.published.push({ topic, twist });
    return true;
  }
  on: Link['on'] = (event, listener) => this.events.on(event, listener);
  async close(): Promise<void> {
    this.closed = true;
    this.events.setPresence('closed');
  }
}
