// Lets a second listener see a robot's sensor outputs while someone else steps it: `reins sim`
// steps its robot from the rosbridge server with the server's own sink, and the serial device
// must see the same robot's wheels and IMU. The tap wraps this one robot's step() (no other code
// changes) and is undone on close.
import type { SensorSink, SimRobot } from '../simRobot.ts';

const NO_SINK: SensorSink = { wants: () => false, receive: () => undefined };

/** One sink that feeds both; a stream is rendered when either wants it, and goes only to those that do. */
export function combineSinks(first: SensorSink, second: SensorSink): SensorSink {
  return {
    wants: (stream) => first.wants(stream) || second.wants(stream),
    receive: (output) => {
      if (first.wants(output.stream)) first.receive(output);
      if (second.wants(output.stream)) second.receive(output);
    },
  };
}

/** From now on every robot.step() also feeds `tap`; returns the function that removes the tap. */
export function tapSensorOutputs(robot: SimRobot, tap: SensorSink): () => void {
  const ownStep = Object.getPrototypeOf(robot).step as SimRobot['step'];
  robot.step = (dtSecs: number, sink: SensorSink = NO_SINK) => ownStep.call(robot, dtSecs, combineSinks(sink, tap));
  return () => {
    // Back to the class's step(), found again through the prototype.
    delete (robot as Partial<Pick<SimRobot, 'step'>>).step;
  };
}
