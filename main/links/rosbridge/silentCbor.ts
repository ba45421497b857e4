// Notices a CBOR subscription that stays silent on a topic that is publishing. rosbridge_suite 0.11
// (ROS 1) accepts a CBOR subscription to some types (JointState, Odometry) and then fails to encode
// every message, logging only `'float' object has no attribute '__slots__'`
// (fixtures/rosbridge-ros1/jointstate-cbor, odometry-cbor). Silence alone proves nothing (the topic
// may simply be quiet), so after `silentAfterMs` without a CBOR message a short JSON probe
// subscribes to the topic, throttled, on a SEPARATE connection: rosbridge merges one client's
// subscriptions to a topic into a single stream with the strongest compression asked for
// (rosbridge_library's Subscription.update_params), so a JSON probe on the same connection would
// be silenced too. If the probe hears `probeMessagesNeeded` messages while the CBOR subscription,
// older than the probe, heard none, the topic is publishing and CBOR is broken for it: `onSilent`.
// A probe that hears too little means the topic is quiet; the check re-arms with a longer wait.
import type { LinkClock, TimerHandle } from './linkClock.ts';

export interface TopicProbe {
  close(): void;
}

export type OpenProbe = (topic: string, rosType: string, onMessage: () => void) => TopicProbe;

export interface SilentCborOptions {
  silentAfterMs: number;
  probeWindowMs: number;
  probeMessagesNeeded: number;
  /** The longest wait between checks of a topic that keeps being quiet. */
  maxSilentAfterMs: number;
}

export const DEFAULT_SILENT_CBOR_OPTIONS: Readonly<SilentCborOptions> = Object.freeze({
  silentAfterMs: 3000,
  probeWindowMs: 3000,
  probeMessagesNeeded: 2,
  maxSilentAfterMs: 60_000,
});

interface Watched {
  rosType: string;
  silentAfterMs: number;
  timer: TimerHandle | undefined;
  probe: TopicProbe | undefined;
  probeMessages: number;
}

export class SilentCborWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly options: Readonly<SilentCborOptions>,
    private readonly clock: LinkClock,
    private readonly openProbe: OpenProbe,
    private readonly onSilent: (topic: string) => void,
  ) {}

  /** Starts watching a fresh CBOR subscription. */
  watch(topic: string, rosType: string): void {
    this.forget(topic);
    const watched: Watched = { rosType, silentAfterMs: this.options.silentAfterMs, timer: undefined, probe: undefined, probeMessages: 0 };
    this.watched.set(topic, watched);
    this.arm(topic, watched);
  }

  /** The CBOR subscription delivered: it works, stop watching (a map miss from then on). */
  delivered(topic: string): void {
    if (this.watched.has(topic)) this.forget(topic);
  }

  isProbing(topic: string): boolean {
    return this.watched.get(topic)?.probe !== undefined;
  }

  forget(topic: string): void {
    const watched = this.watched.get(topic);
    if (watched === undefined) return;
    this.watched.delete(topic);
    this.stop(watched);
  }

  forgetAll(): void {
    for (const topic of [...this.watched.keys()]) this.forget(topic);
  }

  private arm(topic: string, watched: Watched): void {
    watched.timer = this.clock.setTimeout(() => this.startProbe(topic, watched), watched.silentAfterMs);
  }

  private startProbe(topic: string, watched: Watched): void {
    watched.probeMessages = 0;
    const probe = this.openProbe(topic, watched.rosType, () => {
      // A closed probe's late message counts for nothing.
      if (watched.probe !== probe) return;
      watched.probeMessages++;
      if (watched.probeMessages < this.options.probeMessagesNeeded) return;
      this.forget(topic);
      this.onSilent(topic);
    });
    watched.probe = probe;
    watched.timer = this.clock.setTimeout(() => {
      // The probe heard too little: the topic is quiet, not broken. Look again later.
      this.stop(watched);
      watched.silentAfterMs = Math.min(this.options.maxSilentAfterMs, watched.silentAfterMs * 2);
      this.arm(topic, watched);
    }, this.options.probeWindowMs);
  }

  private stop(watched: Watched): void {
    if (watched.timer !== undefined) this.clock.clearTimeout(watched.timer);
    watched.timer = undefined;
    watched.probe?.close();
    watched.probe = undefined;
  }
}
