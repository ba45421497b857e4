// The link the control loop holds for the whole session, whichever robot is attached behind it.
// Subscriptions outlive a switch (they are made again on the new robot), presence and alerts come
// from the robot attached now, and nothing is ever buffered or replayed across a switch: a publish
// goes to the robot attached at that moment or is dropped. It does not own the robots it fronts:
// whoever opened one closes it.
import type { CoreAlert } from '../core/alert.ts';
import {
  DEFAULT_TOPIC_MAP,
  type Link,
  type LinkCapabilities,
  type LinkEvents,
  type LinkPresence,
  type NodeParameterRead,
  type RobotAssetFetch,
  type TopicInfo,
  type TopicMap,
  type TopicRole,
  type Unsubscribe,
} from '../core/link.ts';
import { LinkEventHub } from './linkEventHub.ts';
import type { Received, RobotMessage, Twist } from '../core/messages.ts';

interface Subscription {
  /** The topic as the loop names it (its own topic map). */
  topic: string;
  onMessage: (received: Received<RobotMessage>) => void;
  /** Ends the subscription on the robot attached now. */
  detach: Unsubscribe;
}

export class SwitchableLink implements Link {
  private current: Link;
  /** The loop's topic name → the attached robot's, for roles whose topic differs. */
  private renames = new Map<string, string>();
  private readonly subscriptions = new Set<Subscription>();
  private readonly events: LinkEventHub;
  private detachEvents: Unsubscribe[] = [];
  private closed = false;

  /** `loopTopics`: the topic map the control loop was built with; robots attach with their own. */
  constructor(
    initial: Link,
    private readonly loopTopics: Readonly<TopicMap> = DEFAULT_TOPIC_MAP,
    initialTopics: Readonly<TopicMap> = loopTopics,
  ) {
    this.current = initial;
    this.events = new LinkEventHub(initial.presence());
    this.attach(initial, initialTopics);
  }

  get robotName(): string {
    return this.current.robotName;
  }

  get capabilities(): LinkCapabilities {
    return this.current.capabilities;
  }

  /** The robot attached now. */
  attached(): Link {
    return this.current;
  }

  /**
   * Puts `link` behind this one with its topic map and returns the robot it replaces, which the
   * caller closes. Subscriptions move to the new robot; whatever the old one still delivers is ignored.
   */
  switchTo(link: Link, robotTopics: Readonly<TopicMap> = this.loopTopics): Link {
    if (this.closed) throw new Error('the switchable link is closed');
    const previous = this.current;
    for (const detach of this.detachEvents.splice(0)) detach();
    for (const subscription of this.subscriptions) subscription.detach();
    this.current = link;
    this.attach(link, robotTopics);
    this.events.setPresence(link.presence());
    this.events.emitAlerts(link.alerts());
    return previous;
  }

  presence(): LinkPresence {
    return this.closed ? 'closed' : this.current.presence();
  }

  alerts(): readonly CoreAlert[] {
    return this.closed ? [] : this.current.alerts();
  }

  topics(): readonly TopicInfo[] {
    const loopNames = new Map([...this.renames].map(([loopTopic, robotTopic]) => [robotTopic, loopTopic]));
    return this.current.topics().map((info) => {
      const loopTopic = loopNames.get(info.topic);
      return loopTopic === undefined ? info : { ...info, topic: loopTopic };
    });
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    if (this.closed) return () => undefined;
    // The cast restates the subscriber's own promise: it asked for M on this topic.
    const subscription: Subscription = { topic, onMessage: onMessage as (received: Received<RobotMessage>) => void, detach: () => undefined };
    this.subscribeOnRobot(subscription);
    this.subscriptions.add(subscription);
    return () => {
      subscription.detach();
      this.subscriptions.delete(subscription);
    };
  }

  publish(topic: string, twist: Twist): boolean {
    if (this.closed) return false;
    return this.current.publish(this.robotTopic(topic), twist);
  }

  /** The attached robot's node parameter, where its link can read one. */
  readNodeParameter(node: string, name: string): Promise<NodeParameterRead> {
    const robot = this.current;
    if (this.closed || robot.readNodeParameter === undefined)
      return Promise.resolve({ ok: false, problem: `this robot's link cannot read node parameters (${robot.robotName})` });
    return robot.readNodeParameter(node, name);
  }

  /** A file the attached robot serves, where its link can fetch one. */
  fetchAsset(uri: string): Promise<RobotAssetFetch> {
    const robot = this.current;
    if (this.closed || robot.fetchAsset === undefined)
      return Promise.resolve({
        ok: false,
        problem: `the robot's files cannot be fetched over this link (only foxglove_bridge serves them)`,
        failure: 'unsupported',
      });
    return robot.fetchAsset(uri);
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** Stops fronting the attached robot (it is not closed: its opener does that) and drops every subscription. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const detach of this.detachEvents.splice(0)) detach();
    for (const subscription of this.subscriptions) subscription.detach();
    this.subscriptions.clear();
    this.events.setPresence('closed');
    this.closed = true;
    this.events.clear();
  }

  private attach(link: Link, robotTopics: Readonly<TopicMap>): void {
    this.renames = new Map();
    for (const role of Object.keys(this.loopTopics) as TopicRole[]) {
      if (robotTopics[role] !== this.loopTopics[role]) this.renames.set(this.loopTopics[role], robotTopics[role]);
    }
    for (const subscription of this.subscriptions) this.subscribeOnRobot(subscription);
    // Only the attached robot speaks: a replaced one's late events are never forwarded.
    this.detachEvents = [
      link.on('presence', (presence) => {
        if (link === this.current) this.events.setPresence(presence);
      }),
      link.on('alerts', (alerts) => {
        if (link === this.current) this.events.emitAlerts(alerts);
      }),
    ];
  }

  private subscribeOnRobot(subscription: Subscription): void {
    const link = this.current;
    const detach = link.subscribe(this.robotTopic(subscription.topic), (received) => {
      if (link === this.current) subscription.onMessage(received);
    });
    subscription.detach = detach;
  }

  private robotTopic(loopTopic: string): string {
    return this.renames.get(loopTopic) ?? loopTopic;
  }
}
