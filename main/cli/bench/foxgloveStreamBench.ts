// One foxglove stream measured as the cockpit receives it: a fresh FoxgloveLink subscribed to the one
// channel under test (cdr with a ros2msg schema, as foxglove_bridge sends it), for a fixed window
// after a warm-up. Latency runs from the robot's header stamp to the moment the decoded message
// reaches the subscriber. The protocol has no time service, so the link's own offset estimate comes
// from the lower envelope of latencies, which would take the fastest message's latency for clock
// offset; the bench's sim shares this machine's clock, so the stamp is taken as it is (the rosbridge
// rows' round-trip estimate comes to the same within its uncertainty).
import { openFoxgloveLink, waitUntilPresent, type LinkClock } from '../../session/linkParts.ts';
import type { StreamResult, StreamTimings } from './rosbridgeStreamBench.ts';
import { StreamWindow } from './streamWindow.ts';

/** Sub-millisecond wall clock: Date.now() would round every latency to whole milliseconds. */
const preciseClock: LinkClock = {
  epochMs: () => performance.timeOrigin + performance.now(),
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (id) => clearTimeout(id),
};

export async function measureFoxgloveStream(url: string, name: string, topic: string, timings: StreamTimings): Promise<StreamResult> {
  const link = openFoxgloveLink({ url, simulated: true, clock: preciseClock });
  try {
    await waitUntilPresent(link, timings.connectTimeoutMs);
    const window = new StreamWindow(preciseClock.epochMs() + timings.warmupMs, timings.windowMs);
    const unsubscribe = link.subscribe(topic, (received) => window.record(preciseClock.epochMs(), headerStampMs(received.raw) ?? received.sourceTimeMs));
    await new Promise((resolve) => setTimeout(resolve, timings.warmupMs + timings.windowMs));
    unsubscribe();
    const alerts = link.alerts().filter((alert) => alert.severity !== 'info');
    return { rows: window.rows(name), clockOffset: link.clockOffset(), alerts };
  } finally {
    await link.close();
  }
}

/** A ROS 2 message's `header.stamp` in ms since the epoch, as the robot stamped it. */
function headerStampMs(raw: unknown): number | undefined {
  const stamp = (raw as { header?: { stamp?: { sec?: unknown; nanosec?: unknown } } } | undefined)?.header?.stamp;
  return typeof stamp?.sec === 'number' && typeof stamp.nanosec === 'number' ? stamp.sec * 1000 + stamp.nanosec / 1e6 : undefined;
}
