import { describe, expect, it } from 'vitest';
import { compileFieldPath } from '../core/fieldPath.ts';
import { readFieldSeries } from './fieldSeries.ts';

function path(text: string) {
  const compiled = compileFieldPath(text, 'nav_msgs/Odometry');
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.compiled;
}

function source(messages: Array<{ topic: string; logTimeMs: number; value: unknown }>) {
  return {
    async *messages(range: { topics?: readonly string[] }) {
      for (const message of messages) if (range.topics?.includes(message.topic) ?? true) yield message;
    },
  };
}

const odom = (speed: number) => ({ twist: { twist: { linear: { x: speed } } } });

describe('a field over a log', () => {
  it('reads every message of the topic, null where one lacks the field', async () => {
    const read = await readFieldSeries(
      source([
        { topic: '/odom', logTimeMs: 10, value: odom(0.1) },
        { topic: '/imu', logTimeMs: 15, value: {} },
        { topic: '/odom', logTimeMs: 20, value: {} },
        { topic: '/odom', logTimeMs: 30, value: odom(0.3) },
      ]),
      path('/odom.twist.twist.linear.x'),
    );
    expect(read).toEqual({ ok: true, series: { path: '/odom.twist.twist.linear.x', timesMs: [10, 20, 30], values: [0.1, null, 0.3] } });
  });

  it('says why, in words, when no message has the field', async () => {
    const compiled = compileFieldPath('/odom.twist.twist.linear.x');
    if (!compiled.ok) throw new Error(compiled.message);
    const read = await readFieldSeries(source([{ topic: '/odom', logTimeMs: 10, value: { twist: { covariance: [] } } }]), compiled.compiled);
    expect(read).toEqual({ ok: false, problem: "/odom has no field 'twist' at /odom.twist.twist; fields there: covariance" });
  });

  it('thins a long log to its bound, keeping each bucket’s lowest and highest', async () => {
    const messages = Array.from({ length: 10_000 }, (_, i) => ({ topic: '/odom', logTimeMs: i, value: odom(i === 4321 ? 50 : Math.sin(i / 100)) }));
    const read = await readFieldSeries(source(messages), path('/odom.twist.twist.linear.x'), 1000);
    if (!read.ok) throw new Error(read.problem);
    expect(read.series.timesMs.length).toBeLessThanOrEqual(1000);
    expect(Math.max(...read.series.values.map((value) => value ?? -Infinity))).toBe(50);
    expect(read.series.timesMs).toEqual([...read.series.timesMs].sort((a, b) => a - b));
  });
});
