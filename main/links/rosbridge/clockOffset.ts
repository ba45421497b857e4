// Estimates the robot's clock relative to the cockpit's, so that a robot stamp can be put on the
// cockpit clock and latency figures mean something. Preferred: NTP-style round trips (ask the robot
// for its time; its answer was true somewhere between sending and receiving, so the offset is
// robot − midpoint, give or take half the round trip), keeping the sample with the smallest round
// trip in a sliding window (queueing only ever adds delay, so the fastest exchange is the most
// honest). Fallback when the robot cannot be asked: the lower envelope of message latencies, i.e.
// the largest (stamp − arrival) seen in the window, which assumes the fastest message took no time
// and so reports latencies relative to the fastest one (uncertainty unknown). Where both exist the
// envelope also tightens the round trip: a stamp taken before sending bounds the offset from below
// (offset ≥ stamp − arrival), so a round-trip offset under that bound, but within its own
// uncertainty of it, is raised to it (asymmetric delays, e.g. a busy robot answering late, bias
// the midpoint low).

export interface RoundTripSample {
  /** Cockpit ms when the request left. */
  sentMs: number;
  /** The robot's answer, in ms on its own clock. */
  robotMs: number;
  /** Cockpit ms when the answer arrived. */
  receivedMs: number;
}

export interface ClockOffsetEstimate {
  /** Robot clock minus cockpit clock: cockpitMs = robotMs − offsetMs. */
  offsetMs: number;
  /** Half the best round trip; undefined for the stamp envelope, whose error is not known. */
  uncertaintyMs: number | undefined;
  source: 'round-trip' | 'stamp-envelope';
  /** Samples (round trips, or stamped messages) behind the estimate, within the window. */
  sampleCount: number;
}

export interface ClockOffsetOptions {
  windowMs: number;
  /** Round trips kept at most (the window usually holds far fewer). */
  maxRoundTrips: number;
}

export const DEFAULT_CLOCK_OFFSET_OPTIONS: Readonly<ClockOffsetOptions> = Object.freeze({ windowMs: 60_000, maxRoundTrips: 64 });

/** The envelope keeps one maximum per bucket, so old extremes age out without storing every message. */
const ENVELOPE_BUCKETS = 12;

interface EnvelopeBucket {
  index: number;
  maxAheadMs: number;
  count: number;
}

export class ClockOffsetEstimator {
  private readonly roundTrips: RoundTripSample[] = [];
  private readonly envelope: EnvelopeBucket[] = [];
  private readonly bucketMs: number;

  constructor(private readonly options: Readonly<ClockOffsetOptions> = DEFAULT_CLOCK_OFFSET_OPTIONS) {
    this.bucketMs = options.windowMs / ENVELOPE_BUCKETS;
  }

  addRoundTrip(sample: RoundTripSample): void {
    const valid = [sample.sentMs, sample.robotMs, sample.receivedMs].every(Number.isFinite) && sample.receivedMs >= sample.sentMs;
    if (!valid) return;
    this.roundTrips.push(sample);
    if (this.roundTrips.length > this.options.maxRoundTrips) this.roundTrips.shift();
  }

  /** Notes a stamped message for the envelope fallback. */
  addStamp(stampMs: number, receivedMs: number): void {
    if (!Number.isFinite(stampMs) || !Number.isFinite(receivedMs)) return;
    const index = Math.floor(receivedMs / this.bucketMs);
    const aheadMs = stampMs - receivedMs;
    const last = this.envelope.at(-1);
    if (last !== undefined && last.index === index) {
      last.maxAheadMs = Math.max(last.maxAheadMs, aheadMs);
      last.count++;
      return;
    }
    this.envelope.push({ index, maxAheadMs: aheadMs, count: 1 });
    while (this.envelope.length > ENVELOPE_BUCKETS + 1) this.envelope.shift();
  }

  estimate(nowMs: number): ClockOffsetEstimate | undefined {
    const envelope = this.envelopeLowerBound(nowMs);
    const recent = this.roundTrips.filter((sample) => nowMs - sample.receivedMs <= this.options.windowMs);
    if (recent.length > 0) {
      const best = recent.reduce((a, b) => (b.receivedMs - b.sentMs < a.receivedMs - a.sentMs ? b : a));
      const midpointMs = best.robotMs - (best.sentMs + best.receivedMs) / 2;
      const uncertaintyMs = (best.receivedMs - best.sentMs) / 2;
      const bound = envelope?.offsetMs;
      const consistent = bound !== undefined && bound > midpointMs && bound <= midpointMs + uncertaintyMs;
      return { offsetMs: consistent ? bound : midpointMs, uncertaintyMs, source: 'round-trip', sampleCount: recent.length };
    }
    return envelope === undefined ? undefined : { ...envelope, uncertaintyMs: undefined, source: 'stamp-envelope' };
  }

  private envelopeLowerBound(nowMs: number): { offsetMs: number; sampleCount: number } | undefined {
    const oldestIndex = Math.floor((nowMs - this.options.windowMs) / this.bucketMs);
    const buckets = this.envelope.filter((bucket) => bucket.index >= oldestIndex);
    if (buckets.length === 0) return undefined;
    return { offsetMs: Math.max(...buckets.map((bucket) => bucket.maxAheadMs)), sampleCount: buckets.reduce((sum, bucket) => sum + bucket.count, 0) };
  }

  /** A robot stamp on the cockpit clock; undefined until there is an estimate. */
  toCockpitMs(stampMs: number, nowMs: number): number | undefined {
    const estimate = this.estimate(nowMs);
    return estimate === undefined ? undefined : stampMs - estimate.offsetMs;
  }
}
