// Builds one ObservationFrame per tick: the newest message of each stream with its age. A stream
// older than its staleness limit is marked missing, never silently reused.
import type { Link, TopicMap, Unsubscribe } from '../core/link.ts';
import type { MessageKind, Received, RobotMessage } from '../core/messages.ts';
import type { ObservationFrame, RoleMessages, StreamRole, StreamSample } from '../core/frame.ts';
import { STREAM_ROLES } from '../core/frame.ts';

const ROLE_KIND: Record<StreamRole, MessageKind> = {
  camera: 'Image',
  scan: 'LaserScan',
  joints: 'JointState',
  imu: 'Imu',
  odom: 'Odometry',
};

export const DEFAULT_STALENESS_MS: Readonly<Record<StreamRole, number>> = Object.freeze({
  camera: 500,
  scan: 500,
  joints: 200,
  imu: 200,
  odom: 200,
});

export interface StreamHealth {
  role: StreamRole;
  topic: string;
  rateHz: number;
  ageMs: number | undefined;
  stale: boolean;
}

const RATE_WINDOW_MS = 2000;

class StreamTrack<M extends RobotMessage> {
  latest: Received<M> | undefined;
  /** Arrival times inside the rate window, oldest first. */
  private readonly arrivalsMs: number[] = [];

  record(received: Received<M>): void {
    this.latest = received;
    this.arrivalsMs.push(received.receiveTimeMs);
    this.trim(received.receiveTimeMs);
  }

  rateHz(nowMs: number): number {
    this.trim(nowMs);
    // Measured between arrivals, so a stream younger than the window is not under-counted.
    const count = this.arrivalsMs.length;
    if (count < 2) return 0;
    const spanMs = this.arrivalsMs[count - 1]! - this.arrivalsMs[0]!;
    return spanMs > 0 ? ((count - 1) * 1000) / spanMs : 0;
  }

  private trim(nowMs: number): void {
    while (this.arrivalsMs.length > 0 && nowMs - this.arrivalsMs[0]! > RATE_WINDOW_MS) this.arrivalsMs.shift();
  }
}

export class Synchroniser {
  private readonly tracks = new Map<StreamRole, StreamTrack<RobotMessage>>();
  private readonly unsubscribes: Unsubscribe[] = [];
  private readonly mismatchListeners = new Set<(role: StreamRole, topic: string, kind: MessageKind) => void>();
  private readonly arrivalListeners = new Set<(role: StreamRole) => void>();

  constructor(
    link: Link,
    private readonly topics: TopicMap,
    private readonly stalenessMs: Readonly<Record<StreamRole, number>> = DEFAULT_STALENESS_MS,
  ) {
    for (const role of STREAM_ROLES) {
      const track = new StreamTrack<RobotMessage>();
      this.tracks.set(role, track);
      this.unsubscribes.push(
        link.subscribe(topics[role], (received) => {
          if (received.msg.kind !== ROLE_KIND[role]) {
            for (const listener of this.mismatchListeners) listener(role, received.topic, received.msg.kind);
            return;
          }
          track.record(received);
          for (const listener of this.arrivalListeners) listener(role);
        }),
      );
    }
  }

  /** Told when a topic delivers the wrong kind of message for its role (a miswired topic map). */
  onKindMismatch(listener: (role: StreamRole, topic: string, kind: MessageKind) => void): () => void {
    this.mismatchListeners.add(listener);
    return () => this.mismatchListeners.delete(listener);
  }

  /** Told each time a stream's newest message changes (previews go out as frames arrive, not on a poll). */
  onArrival(listener: (role: StreamRole) => void): () => void {
    this.arrivalListeners.add(listener);
    return () => this.arrivalListeners.delete(listener);
  }

  /** The newest message of one stream, however old. For previews, never for the tick's frame. */
  latest<R extends StreamRole>(role: R): Received<RoleMessages[R]> | undefined {
    return this.tracks.get(role)?.latest as Received<RoleMessages[R]> | undefined;
  }

  frame(nowMs: number): ObservationFrame {
    const frame: ObservationFrame = { timeMs: nowMs, missing: [] };
    for (const role of STREAM_ROLES) {
      const latest = this.tracks.get(role)?.latest;
      const ageMs = latest === undefined ? undefined : nowMs - latest.receiveTimeMs;
      if (latest === undefined || ageMs === undefined || ageMs > this.stalenessMs[role]) {
        frame.missing.push(role);
        continue;
      }
      (frame as Record<StreamRole, StreamSample<RobotMessage>>)[role] = { received: latest, ageMs };
    }
    return frame;
  }

  health(nowMs: number): StreamHealth[] {
    return STREAM_ROLES.map((role) => {
      const track = this.tracks.get(role)!;
      const ageMs = track.latest === undefined ? undefined : nowMs - track.latest.receiveTimeMs;
      return {
        role,
        topic: this.topics[role],
        rateHz: track.rateHz(nowMs),
        ageMs,
        stale: ageMs === undefined || ageMs > this.stalenessMs[role],
      };
    });
  }

  close(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }
}
