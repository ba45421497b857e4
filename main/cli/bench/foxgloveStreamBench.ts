// One foxglove stream measured as the cockpit receives it: a fresh FoxgloveLink subscribed to the one
// channel under test (cdr with a ros2msg schema, as foxglove_bridge sends it), for a fixed window
// after a warm-up. Latency runs from the robot's header stamp, put on the cockpit clock, to the moment
// the decoded message reaches the subscriber.
//
// The robot's clock is not this machine's: the simulated robot's clock is its simulated time, which
// falls behind the wall clock by every step it could not keep up with (measured 7–15 ms behind by
// the time the bench runs). The foxglove protocol has no time service, and the link's own fallback
// (the lower envelope of latencies) would take the fastest message's latency for clock offset. So,
// as the rosbridge rows do, the stamp is put on the cockpit clock with a round-trip estimate of the
// same robot's clock: a rosbridge link to the robot that serves this foxglove server (one process,
// one clock), open beside it for the window, subscribed to nothing, asking `/rosapi/get_time`.
import { openFoxgloveLink, openRosbridgeLink, waitUntilPresent } from '../../session/linkParts.ts';
import { preciseClock, type StreamResult, type StreamTimings } from './rosbridgeStreamBench.ts';
import { StreamWindow } from './streamWindow.ts';

/** `clockUrl`: the rosbridge address of the robot behind `url`, whose `/rosapi/get_time` gives its clock. */
export async function measureFoxgloveStream(url: string, clockUrl: string, name: string, topic: string, timings: StreamTimings): Promise<StreamResult> {
  const clock = openRosbridgeLink({ url: clockUrl, compression: {}, simulated: true, clock: preciseClock });
  const link = openFoxgloveLink({ url, simulated: true, clock: preciseClock });
  try {
    await Promise.all([waitUntilPresent(clock, timings.connectTimeoutMs), waitUntilPresent(link, timings.connectTimeoutMs)]);
    const window = new StreamWindow(preciseClock.epochMs() + timings.warmupMs, timings.windowMs);
    let unplaced = 0;
    const unsubscribe = link.subscribe(topic, (received) => {
      const decodedAtMs = preciseClock.epochMs();
      const stampMs = headerStampMs(received.raw);
      const offset = clock.clockOffset();
      if (stampMs === undefined || offset === undefined) {
        unplaced++;
        return;
      }
      // As the rosbridge link places its stamps: never after the message arrived.
      window.record(decodedAtMs, Math.min(received.receiveTimeMs, stampMs - offset.offsetMs));
    });
    await new Promise((resolve) => setTimeout(resolve, timings.warmupMs + timings.windowMs));
    unsubscribe();
    if (window.count === 0 && unplaced > 0) throw new Error(`${name}: ${unplaced} messages arrived, none with a header stamp and a known robot clock`);
    const alerts = link.alerts().filter((alert) => alert.severity !== 'info');
    return { rows: window.rows(name), clockOffset: clock.clockOffset(), alerts };
  } finally {
    await Promise.all([link.close(), clock.close()]);
  }
}

/** A ROS 2 message's `header.stamp` in ms since the epoch, on the robot's clock. */
function headerStampMs(raw: unknown): number | undefined {
  const stamp = (raw as { header?: { stamp?: { sec?: unknown; nanosec?: unknown } } } | undefined)?.header?.stamp;
  return typeof stamp?.sec === 'number' && typeof stamp.nanosec === 'number' ? stamp.sec * 1000 + stamp.nanosec / 1e6 : undefined;
}
