import { describe, expect, it } from 'vitest';
import type { Imu, Received } from '../core/messages.ts';
import { TopicFanout } from './topicFanout.ts';

const message = (topic: string) => ({ topic, receiveTimeMs: 1, sourceTimeMs: 1, msg: {} }) as unknown as Received<Imu>;

describe('TopicFanout', () => {
  it('tells the link when a topic gains its first subscriber and loses its last, once each', () => {
    const events: string[] = [];
    const fanout = new TopicFanout({
      subscriberFailed: () => undefined,
      firstSubscribed: (topic) => events.push(`first ${topic}`),
      lastUnsubscribed: (topic) => events.push(`last ${topic}`),
    });
    const stopA = fanout.subscribe('/imu', () => undefined);
    const stopB = fanout.subscribe('/imu', () => undefined);
    stopA();
    stopA();
    expect(fanout.wants('/imu')).toBe(true);
    stopB();
    expect(fanout.wants('/imu')).toBe(false);
    expect(events).toEqual(['first /imu', 'last /imu']);
    // After clear() (the link closed) a late unsubscribe asks nothing of the link.
    const stopC = fanout.subscribe('/scan', () => undefined);
    fanout.clear();
    stopC();
    expect(events).toEqual(['first /imu', 'last /imu', 'first /scan']);
    expect([...fanout.topics()]).toEqual([]);
  });

  it('hands a message to every subscriber of its topic, reporting one that throws without skipping the rest', () => {
    const failures: string[] = [];
    const fanout = new TopicFanout({ subscriberFailed: (topic, error) => failures.push(`${topic}: ${(error as Error).message}`) });
    const got: string[] = [];
    fanout.subscribe('/imu', () => {
      throw new Error('panel bug');
    });
    const stopSelf = fanout.subscribe('/imu', () => {
      got.push('self-removing');
      stopSelf();
    });
    fanout.subscribe('/imu', () => got.push('last'));
    fanout.subscribe('/scan', () => got.push('scan'));
    fanout.deliver(message('/imu'));
    fanout.deliver(message('/imu'));
    expect(got).toEqual(['self-removing', 'last', 'last']);
    expect(failures).toEqual(['/imu: panel bug', '/imu: panel bug']);
  });

  it('hands a latched message to a subscriber who joins after it came, once, and forgets it with the last subscriber', async () => {
    const fanout = new TopicFanout({ subscriberFailed: () => undefined, keepLatest: (received) => received.msg.kind === 'RosFields' });
    const description: Received = {
      topic: '/robot_description',
      receiveTimeMs: 5,
      sourceTimeMs: 5,
      msg: { kind: 'RosFields', rosType: 'std_msgs/String', fields: { data: '<robot/>' } },
    };
    const scene: Received[] = [];
    const stopScene = fanout.subscribe('/robot_description', (received) => scene.push(received));
    fanout.deliver(description);
    const recorder: Received[] = [];
    const stopRecorder = fanout.subscribe('/robot_description', (received) => recorder.push(received));
    // Not while subscribe runs: the subscriber has its unsubscribe first.
    expect(recorder).toEqual([]);
    await Promise.resolve();
    expect(recorder).toEqual([description]);
    expect(scene).toEqual([description]);
    // Streams of kinds of their own are never kept (a late camera panel waits for the next frame).
    fanout.subscribe('/imu', () => undefined);
    fanout.deliver(message('/imu'));
    const late: unknown[] = [];
    fanout.subscribe('/imu', (received) => late.push(received));
    await Promise.resolve();
    expect(late).toEqual([]);
    // With its last subscriber gone the wire subscription ends: the next one gets the latched message anew.
    stopScene();
    stopRecorder();
    const again: Received[] = [];
    fanout.subscribe('/robot_description', (received) => again.push(received));
    fanout.subscribe('/robot_description', (received) => again.push(received));
    await Promise.resolve();
    expect(again).toEqual([]);
  });
});
