import { describe, expect, it } from 'vitest';
import { formatProbe } from './runProbe.ts';

describe('formatProbe', () => {
  it("shows the command topic with its type and the robot's clock offset above the topic table", () => {
    const text = formatProbe({
      robot: 'ws://robot:9090',
      connected: true,
      topics: [{ name: '/imu', type: 'sensor_msgs/Imu', hz: 100, bytesPerSec: 30_000, latencyMsP50: 2.5 }],
      command: { topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped' },
      clockOffset: { offsetMs: 10_003.4, uncertaintyMs: 0.8, source: 'round-trip', sampleCount: 3 },
    });
    const lines = text.split('\n');
    expect(lines[1]).toBe('command topic: /cmd_vel (geometry_msgs/TwistStamped)');
    expect(lines[2]).toBe('robot clock − cockpit clock: 10.003 s ± 0.8 ms');
    expect(lines[3]).toMatch(/^topic\s+type\s+Hz/);
  });

  it('says why no command can be sent, and when the clock is unknown', () => {
    const text = formatProbe({ robot: 'ws://robot:9090', connected: true, topics: [], commandProblem: 'The robot does not offer the command topic /cmd_vel.' });
    expect(text).toContain('command topic: none — The robot does not offer the command topic /cmd_vel.');
    expect(text).toContain('robot clock − cockpit clock: unknown');
  });
});
