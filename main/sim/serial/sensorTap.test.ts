import { describe, expect, it } from 'vitest';
import { SimRobot, type SensorOutput, type SensorSink } from '../simRobot.ts';
import { tapSensorOutputs } from './sensorTap.ts';

const collector = (streams: string[]): SensorSink & { seen: string[] } => {
  const seen: string[] = [];
  return { seen, wants: (stream) => streams.includes(stream), receive: (output: SensorOutput) => seen.push(output.stream) };
};

describe('tapSensorOutputs', () => {
  it('shows a second listener the outputs of steps someone else makes, until removed', () => {
    const robot = new SimRobot();
    const stepper = collector(['odom']);
    const tap = collector(['joints']);
    const untap = tapSensorOutputs(robot, tap);
    robot.step(0.1, stepper);
    expect(stepper.seen.every((stream) => stream === 'odom')).toBe(true);
    expect(tap.seen.length).toBeGreaterThan(0);
    expect(tap.seen.every((stream) => stream === 'joints')).toBe(true);
    untap();
    const before = tap.seen.length;
    robot.step(0.1, stepper);
    expect(tap.seen.length).toBe(before);
    expect(Object.hasOwn(robot, 'step')).toBe(false);
  });
});
