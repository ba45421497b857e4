// One SensorSink that feeds several: whoever steps a robot hands it this, so a second listener (the
// serial device of `reins sim --serial-pty`, beside the rosbridge clients) sees the outputs of the
// same steps. A stream is rendered when any sink wants it, and goes only to the sinks that do.
import type { SensorSink } from './simRobot.ts';

export function fanOutSensors(sinks: readonly SensorSink[]): SensorSink {
  if (sinks.length === 1) return sinks[0]!;
  return {
    wants: (stream) => sinks.some((sink) => sink.wants(stream)),
    receive: (output) => {
      for (const sink of sinks) if (sink.wants(output.stream)) sink.receive(output);
    },
  };
}
