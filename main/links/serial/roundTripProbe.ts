// Measures command → ACK round trips on a present SerialLink: sends `count` small drive commands
// at a steady rate (as a control loop would), stops the robot, and reports the link's round-trip
// statistics. For `reins bench` (the serial-roundtrip row) and tests.
import { twistFromDrive } from '../../core/messages.ts';
import type { RoundTripStats } from './commandRoundTrip.ts';
import type { SerialLink } from './serialLink.ts';

const ACK_WAIT_MS = 2000;

export async function probeRoundTrip(link: SerialLink, options: { count: number; periodMs: number; commandTopic?: string }): Promise<RoundTripStats> {
  const topic = options.commandTopic ?? '/cmd_vel';
  let acked = 0;
  let allAcked: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allAcked = resolve));
  const stopListening = link.onAck(() => {
    if (++acked >= options.count) allAcked();
  });
  try {
    for (let i = 0; i < options.count; i++) {
      // Alternating small speeds, so every command is a change the device must act on.
      if (!link.publish(topic, twistFromDrive({ linearMps: i % 2 === 0 ? 0.05 : 0.06, angularRadps: 0 }))) {
        throw new Error(`the link dropped command ${i + 1} of ${options.count} (presence: ${link.presence()})`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.periodMs));
    }
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ACK_WAIT_MS)));
    const outcome = await Promise.race([done, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') throw new Error(`${options.count - acked} of ${options.count} commands were not acknowledged within ${ACK_WAIT_MS} ms`);
  } finally {
    stopListening();
    link.publish(topic, twistFromDrive({ linearMps: 0, angularRadps: 0 }));
  }
  const stats = link.roundTripStats();
  if (!stats) throw new Error('no round trip was measured');
  return stats;
}
