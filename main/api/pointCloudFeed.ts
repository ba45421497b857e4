// The point cloud the cockpit shows: not a role of the topic map (the control loop never reads it),
// but the robot's PointCloud2 topic, `/points` where it has one, else the first it offers, unless
// the operator named one (CockpitServiceExtras.pointCloudTopic). Chosen again whenever the robot's
// topics change: after discovery, a reconnect or a switch to another robot.
import type { Link, TopicInfo, Unsubscribe } from '../core/link.ts';
import type { PointCloud2, Received } from '../core/messages.ts';

export const PREFERRED_POINT_CLOUD_TOPIC = '/points';
/** How often the robot's topics are looked at again (discovery ends, robots are switched at runtime). */
const RECHOOSE_PERIOD_MS = 1000;

/** The point-cloud topic among a robot's topics: the operator's, else /points, else the first PointCloud2; undefined when it has none. */
export function choosePointCloudTopic(topics: readonly TopicInfo[], wanted: string | undefined): string | undefined {
  if (wanted !== undefined) return wanted;
  const clouds = topics.filter((topic) => topic.kind === 'PointCloud2').map((topic) => topic.topic);
  return clouds.includes(PREFERRED_POINT_CLOUD_TOPIC) ? PREFERRED_POINT_CLOUD_TOPIC : clouds[0];
}

export class PointCloudFeed {
  private topic: string | undefined;
  private unsubscribe: Unsubscribe | undefined;
  private latestCloud: Received<PointCloud2> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly stops: Array<() => void> = [];

  constructor(
    private readonly link: Link,
    /** The operator's choice; undefined to take the robot's own. */
    private readonly wantedTopic: string | undefined = undefined,
  ) {
    this.choose();
    this.stops.push(link.on('presence', () => this.choose()));
    const timer = setInterval(() => this.choose(), RECHOOSE_PERIOD_MS);
    timer.unref();
    this.stops.push(() => clearInterval(timer));
  }

  /** The topic shown now; undefined while the robot offers none. */
  currentTopic(): string | undefined {
    return this.topic;
  }

  latest(): Received<PointCloud2> | undefined {
    return this.latestCloud;
  }

  /** Told on each new cloud; returns the unsubscribe. */
  onArrival(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.listeners.clear();
  }

  private choose(): void {
    const topic = choosePointCloudTopic(this.link.topics(), this.wantedTopic);
    if (topic === this.topic) return;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.topic = topic;
    // Another topic's (or robot's) last cloud is not this one's.
    this.latestCloud = undefined;
    if (topic === undefined) return;
    this.unsubscribe = this.link.subscribe<PointCloud2>(topic, (received) => {
      if (received.msg.kind !== 'PointCloud2') return;
      this.latestCloud = received;
      for (const listener of this.listeners) listener();
    });
  }
}
