import { describe, expect, it } from 'vitest';
import { fanOutSensors } from './sensorFanout.ts';
import { SimRobot, type SensorOutput, type SensorSink, type SensorStream } from './simRobot.ts';

const collector = (streams: SensorStream[]): SensorSink & { seen: SensorStream[] } => {
  const seen: SensorStream[] = [];
  return { seen, wants: (stream) => streams.includes(stream), receive: (output: SensorOutput) => seen.push(output.stream) };
};

describe('fanOutSensors', () => {
  it('feeds every sink the streams it wants from the same steps, and renders nothing nobody wants', () => {
    const robot = new SimRobot();
    const server = collector(['odom']);
    const device = collector(['joints', 'imu']);
    const asked: SensorStream[] = [];
    const spy: SensorSink = { wants: (stream) => (asked.push(stream), false), receive: () => expect.unreachable('a sink that wants nothing got a message') };
    robot.step(0.1, fanOutSensors([server, device, spy]));
    // 0.1 s: odometry and joints at 50 Hz, the IMU at 100 Hz.
    expect(server.seen).toEqual(Array(5).fill('odom'));
    expect(device.seen.filter((stream) => stream === 'joints')).toHaveLength(5);
    expect(device.seen.filter((stream) => stream === 'imu')).toHaveLength(10);
    expect([...server.seen, ...device.seen]).not.toContain('camera');
    expect(asked).toContain('camera');
  });
});
