import { describe, expect, it } from 'vitest';
import type { LinkClock } from './linkClock.ts';
import { SilentCborWatch } from './silentCbor.ts';

/** Timers that fire only when the test advances time. */
function manualClock(): LinkClock & { advance(ms: number): void } {
  let nowMs = 0;
  let nextId = 1;
  const timers = new Map<number, { dueMs: number; callback: () => void }>();
  return {
    epochMs: () => nowMs,
    setTimeout: (callback, delayMs) => (timers.set(nextId, { dueMs: nowMs + delayMs, callback }), nextId++),
    clearTimeout: (id) => void timers.delete(id as number),
    advance(ms) {
      const endMs = nowMs + ms;
      for (;;) {
        const due = [...timers].filter(([, timer]) => timer.dueMs <= endMs).sort((a, b) => a[1].dueMs - b[1].dueMs)[0];
        if (due === undefined) break;
        timers.delete(due[0]);
        nowMs = due[1].dueMs;
        due[1].callback();
      }
      nowMs = endMs;
    },
  };
}

function rig() {
  const clock = manualClock();
  const probes: Array<{ topic: string; hear: () => void; closed: boolean }> = [];
  const silent: string[] = [];
  const watch = new SilentCborWatch(
    { silentAfterMs: 3000, probeWindowMs: 3000, probeMessagesNeeded: 2, maxSilentAfterMs: 10_000 },
    clock,
    (topic, _type, onMessage) => {
      const probe = { topic, hear: onMessage, closed: false };
      probes.push(probe);
      return { close: () => void (probe.closed = true) };
    },
    (topic) => silent.push(topic),
  );
  return { clock, probes, silent, watch };
}

describe('SilentCborWatch', () => {
  it('falls back when a JSON probe hears the topic while CBOR stays silent', () => {
    const { clock, probes, silent, watch } = rig();
    watch.watch('/joint_states', 'sensor_msgs/JointState');
    clock.advance(2999);
    expect(probes).toHaveLength(0);
    clock.advance(1);
    expect(watch.isProbing('/joint_states')).toBe(true);
    probes[0]!.hear();
    expect(silent).toEqual([]);
    probes[0]!.hear();
    expect(silent).toEqual(['/joint_states']);
    expect(probes[0]!.closed).toBe(true);
    clock.advance(60_000);
    expect(probes).toHaveLength(1);
  });

  it('stops watching as soon as CBOR delivers, probe or no probe', () => {
    const { clock, probes, silent, watch } = rig();
    watch.watch('/scan', 'sensor_msgs/LaserScan');
    clock.advance(3000);
    watch.delivered('/scan');
    expect(probes[0]!.closed).toBe(true);
    probes[0]!.hear();
    probes[0]!.hear();
    clock.advance(60_000);
    expect(silent).toEqual([]);
    expect(probes).toHaveLength(1);
  });

  it('treats a quiet probe as a quiet topic and looks again later, less and less often', () => {
    const { clock, probes, silent, watch } = rig();
    watch.watch('/odom', 'nav_msgs/Odometry');
    clock.advance(3000);
    probes[0]!.hear();
    clock.advance(3000);
    expect(probes[0]!.closed).toBe(true);
    clock.advance(5999);
    expect(probes).toHaveLength(1);
    clock.advance(1);
    expect(probes).toHaveLength(2);
    expect(silent).toEqual([]);
    watch.forgetAll();
    expect(probes[1]!.closed).toBe(true);
  });
});
