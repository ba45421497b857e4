// One rosbridge stream measured as the cockpit receives it: a fresh RosbridgeLink subscribed to the
// one topic under test, in JSON, CBOR or (from a ROS 2 robot) cbor-raw, for a fixed window after a warm-up. Latency runs from the
// robot's header stamp, put on the cockpit clock by the link's clock-offset estimate, to the moment
// the decoded message reaches the subscriber.
import type { CoreAlert } from '../../core/alert.ts';
import { openRosbridgeLink, waitUntilPresent, type ClockOffsetEstimate, type LinkClock, type WireCompression } from '../../session/linkParts.ts';
import type { BenchRow } from './report.ts';
import { StreamWindow } from './streamWindow.ts';

export interface StreamCase {
  /** Row prefix, e.g. `image-640x480@30-cbor`. */
  name: string;
  topic: string;
  compression: WireCompression;
}

export interface StreamTimings {
  connectTimeoutMs: number;
  warmupMs: number;
  windowMs: number;
}

export interface StreamResult {
  rows: BenchRow[];
  /** The link's robot-to-cockpit offset estimate at the end of the window. */
  clockOffset: ClockOffsetEstimate | undefined;
  /** Warnings and errors the link raised while measuring (a healthy run has none). */
  alerts: readonly CoreAlert[];
}

/** Sub-millisecond wall clock: Date.now() would round every latency to whole milliseconds. Every stream row is timed on it. */
export const preciseClock: LinkClock = {
  epochMs: () => performance.timeOrigin + performance.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (id) => clearTimeout(id),
};

export async function measureStream(url: string, streamCase: StreamCase, timings: StreamTimings): Promise<StreamResult> {
  const link = openRosbridgeLink({ url, compression: { [streamCase.topic]: streamCase.compression }, simulated: true, clock: preciseClock });
  try {
    await waitUntilPresent(link, timings.connectTimeoutMs);
    const window = new StreamWindow(preciseClock.epochMs() + timings.warmupMs, timings.windowMs);
    const unsubscribe = link.subscribe(streamCase.topic, (received) => window.record(preciseClock.epochMs(), received.sourceTimeMs));
    await new Promise((resolve) => setTimeout(resolve, timings.warmupMs + timings.windowMs));
    unsubscribe();
    if (link.alerts().some((alert) => alert.key === `cbor-fallback:${streamCase.topic}`)) {
      throw new Error(`${streamCase.name}: the link fell back from CBOR to JSON, so this case did not measure CBOR`);
    }
    const schema = link.alerts().find((alert) => alert.key === `schema:${streamCase.topic}`);
    if (streamCase.compression === 'cbor-raw' && schema !== undefined) {
      throw new Error(`${streamCase.name}: ${schema.message} — this case did not measure cbor-raw`);
    }
    const alerts = link.alerts().filter((alert) => alert.severity !== 'info');
    return { rows: window.rows(streamCase.name), clockOffset: link.clockOffset(), alerts };
  } finally {
    await link.close();
  }
}
