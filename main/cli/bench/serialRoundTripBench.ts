// `serial-roundtrip`: VELOCITY command → ACK between the serial link and the reference firmware
// (native/firmware) running under simavr with its UART on a pseudo-terminal, commands sent at a
// steady rate as a control loop would.
import { percentiles } from '../../core/util/latencyWindow.ts';
import { openSerialLink, probeSerialRoundTrip, startReferenceFirmware, waitUntilPresent } from '../../session/linkParts.ts';
import type { BenchRow } from './report.ts';

export interface SerialRoundTripOptions {
  commands: number;
  periodMs: number;
  connectTimeoutMs: number;
}

export const DEFAULT_SERIAL_ROUND_TRIP_OPTIONS: Readonly<SerialRoundTripOptions> = Object.freeze({ commands: 200, periodMs: 20, connectTimeoutMs: 10_000 });

export async function runSerialRoundTripBench(options: SerialRoundTripOptions = DEFAULT_SERIAL_ROUND_TRIP_OPTIONS): Promise<BenchRow[]> {
  const firmware = await startReferenceFirmware();
  const link = openSerialLink({ path: firmware.ptyPath, baud: 115200 }, { listPortPaths: async () => [] });
  try {
    await waitUntilPresent(link, options.connectTimeoutMs);
    // Every round trip, not the link's rolling summary, so that p99 can be read off.
    const roundTripsMs: number[] = [];
    const stopListening = link.onAck((ack) => {
      if (ack.roundTripMs !== undefined && roundTripsMs.length < options.commands) roundTripsMs.push(ack.roundTripMs);
    });
    try {
      await probeSerialRoundTrip(link, { count: options.commands, periodMs: options.periodMs });
    } finally {
      stopListening();
    }
    const meanMs = roundTripsMs.reduce((sum, ms) => sum + ms, 0) / roundTripsMs.length;
    return [{ name: 'serial-roundtrip', unit: 'ms', ...percentiles(roundTripsMs), value: meanMs }];
  } finally {
    await link.close();
    await firmware.stop();
  }
}
