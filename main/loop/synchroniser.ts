// Builds one ObservationFrame per tick: the newest message of each stream with its age. A stream
// older than its staleness limit is marked missing, never silently reused.
import type { Link, TopicMap, Unsubscribe } from '../core/link.ts';
import type { MessageKind, Received, RobotMessage } from '../core/messages.ts';
import type { ObservationFrame, RoleMessages, StreamRole, StreamSample } from '../core/frame.ts';
import { HIGH_RATE_ROLES, STREAM_ROLES } from '../core/frame.ts';

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
/**
 * The most messages a high-rate stream keeps between two ticks: a 1 kHz IMU over a tick that ran
 * 250 ms late. Beyond it the oldest go: a stalled loop must not hoard a stream without bound.
 */
export const MAX_MESSAGES_PER_TICK = 256;

class StreamTrack<M extends RobotMessage> {
  latest: Received<M> | undefined;
  /** Arrival times inside the rate window, oldest first. */
  private readonly arrivalsMs: number[] = [];
  /** Messages since the last frame, oldest first; undefined for a stream read at its latest only. */
  private sinceFrame: M[] | undefined;

  constructor(highRate: boolean) {
    if (highRate) this.sinceFrame = [];
  }

  record(received: Received<M>): void {
    this.latest = received;
    if (this.sinceFrame) {
      if (this.sinceFrame.length >= MAX_MESSAGES_PER_TICK) this.sinceFrame.shift();
      this.sinceFrame.push(received.msg);
    }
    this.arrivalsMs.push(received.receiveTimeMs);
    this.trim(received.receiveTimeMs);
  }

  /** The messages since the previous call, and a fresh window for the next tick. */
  takeSinceFrame(): M[] | undefined {
    const taken = this.sinceFrame;
    if (taken) this.sinceFrame = [];
    return taken;
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
      const track = new StreamTrack<RobotMessage>((HIGH_RATE_ROLES as readonly StreamRole[]).includes(role));
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

  /**
   * The tick's frame. Each call is a tick: the IMU's and the wheels' messages since the previous call go
   * into this frame (`sinceLastTick`) and the next frame starts a new window.
   */
  frame(nowMs: number): ObservationFrame {
    const frame: ObservationFrame = { timeMs: nowMs, missing: [] };
    for (const role of STREAM_ROLES) {
      const track = this.tracks.get(role);
      const latest = track?.latest;
      const sinceLastTick = track?.takeSinceFrame();
      const ageMs = latest === undefined ? undefined : nowMs - latest.receiveTimeMs;
      if (latest === undefined || ageMs === undefined || ageMs > this.stalenessMs[role]) {
        frame.missing.push(role);
        continue;
      }
      (frame as Record<StreamRole, StreamSample<RobotMessage>>)[role] = { received: latest, ageMs, ...(sinceLastTick ? { sinceLastTick } : {}) };
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
