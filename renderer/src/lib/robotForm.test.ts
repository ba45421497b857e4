import { describe, expect, it } from 'vitest';
import { DEFAULT_ROBOT_TOPICS } from './contract.ts';
import { connectionLine, defaultTopicFields, rosbridgeUrlProblem, serialAddress, topicProblem, topicsToSend } from './robotForm.ts';

describe('the connection form', () => {
  it('pre-fills the topic map with the defaults', () => {
    expect(topicsToSend(defaultTopicFields())).toEqual(DEFAULT_ROBOT_TOPICS);
  });

  it('names what is wrong with a topic or a URL', () => {
    expect(topicProblem('/front_camera/image_raw')).toBeUndefined();
    expect(topicProblem('')).toMatch(/give a topic/);
    expect(topicProblem('/camera image')).toMatch(/letters, digits/);
    expect(topicProblem('/2d/scan')).toMatch(/not starting with a digit/);
    expect(rosbridgeUrlProblem('ws://10.0.0.5:9090')).toBeUndefined();
    expect(rosbridgeUrlProblem('10.0.0.5:9090')).toMatch(/starts with ws:\/\//);
    expect(rosbridgeUrlProblem('foxglove://10.0.0.5:8765')).toBeUndefined();
  });

  it('builds serial addresses and reads connection states as words', () => {
    expect(serialAddress('/dev/ttyACM0', 57600)).toBe('serial:/dev/ttyACM0?baud=57600');
    expect(connectionLine({ robot: 'sim', status: 'connected' }).text).toBe('Connected to sim');
    expect(
      connectionLine({
        robot: 'ws://r:9090',
        status: 'connected',
        command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/TwistStamped' },
        clockOffsetMs: 10_003.4,
      }),
    ).toEqual({ text: 'Connected to ws://r:9090 — commands on /cmd_vel as geometry_msgs/msg/TwistStamped; robot clock +10.003 s', tone: 'ok' });
    expect(
      connectionLine({
        robot: 'ws://r:9090',
        status: 'connected',
        command: { topic: '/cmd_vel', problem: 'The robot does not offer the command topic /cmd_vel.' },
      }),
    ).toEqual({
      text: 'Connected to ws://r:9090 — The robot does not offer the command topic /cmd_vel.',
      tone: 'warn',
    });
    expect(connectionLine({ robot: 'ws://h:1', status: 'failed', error: 'nothing answered' })).toEqual({
      text: 'Could not connect to ws://h:1: nothing answered',
      tone: 'error',
    });
  });
});
