// The control loop against the simulated robot in lockstep: who drives, what goes out on the wire,
// and when the watchdog stops the robot.
import { describe, expect, it } from 'vitest';
import { createControlLoop } from '../../main/cli/wiring.ts';
import type { Twist } from '../../main/links/messages.ts';
import { createSimLink } from '../../main/sim/lockstepLink.ts';

function rig(rateHz = 10) {
  let nowMs = 1_000_000;
  const link = createSimLink({ epochMs: nowMs });
  const published: Array<{ atMs: number; linearMps: number; angularRadps: number }> = [];
  const publish = link.publish.bind(link);
  link.publish = (topic: string, twist: Twist) => {
    published.push({ atMs: nowMs, linearMps: twist.linearMps.x, angularRadps: twist.angularRadps.z });
    return publish(topic, twist);
  };
  const loop = createControlLoop(link, { rateHz, clock: () => nowMs });
  const periodMs = 1000 / rateHz;
  return {
    link,
    loop,
    published,
    now: () => nowMs,
    /** Advances the robot and the clock by whole ticks, with the operator's heartbeat kept alive. */
    ticks(count: number, heartbeat = true) {
      for (let i = 0; i < count; i++) {
        link.advance(periodMs / 1000);
        nowMs += periodMs;
        if (heartbeat) loop.heartbeat();
        loop.checkWatchdog();
        loop.tick();
      }
    },
  };
}

describe('ControlLoop', () => {
  it('publishes nothing while idle', () => {
    const r = rig();
    r.ticks(20);
    expect(r.published).toEqual([]);
    expect(r.loop.driver()).toBe('idle');
  });

  it('sends operator input at once, not at the next tick, and one zero on release', () => {
    const r = rig();
    r.ticks(1);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    expect(r.published).toHaveLength(1);
    expect(r.published[0]!.linearMps).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) {
      r.ticks(1);
      r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    }
    expect(r.link.robot.groundTruth().linearMps).toBeGreaterThan(0.2);
    const before = r.published.length;
    r.loop.operatorDrive({ linearMps: 0, angularRadps: 0 });
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    r.ticks(10);
    expect(r.published.length).toBe(before + 1);
  });

  it('treats an operator who stops sending as released: one zero, then silence', () => {
    const r = rig();
    r.ticks(1);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    r.ticks(10);
    const zeros = r.published.filter((p) => p.linearMps === 0 && p.angularRadps === 0);
    expect(zeros).toHaveLength(1);
    expect(r.published.at(-1)).toMatchObject({ linearMps: 0, angularRadps: 0 });
  });

  it('e-stop stops at once and sends zeros at the control rate until released', () => {
    const r = rig();
    r.ticks(1);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0.5 });
    const before = r.published.length;
    r.loop.estop();
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    r.ticks(10);
    const after = r.published.slice(before);
    expect(after.length).toBeGreaterThanOrEqual(11);
    expect(after.every((p) => p.linearMps === 0 && p.angularRadps === 0)).toBe(true);
    r.loop.releaseEStop();
    const released = r.published.length;
    r.ticks(10);
    expect(r.published.length).toBe(released);
  });

  it('lets the policy drive only with autonomy on, and an operator drive takes over', () => {
    const r = rig();
    r.ticks(5);
    expect(r.published).toEqual([]);
    r.loop.setAutonomy(true);
    r.ticks(20);
    expect(r.loop.lastSent()?.driver).toBe('policy');
    expect(r.link.robot.groundTruth().linearMps).toBeGreaterThan(0.05);
    r.loop.operatorDrive({ linearMps: -0.2, angularRadps: 0 });
    expect(r.loop.arbiter.hasTakenOver()).toBe(true);
    r.ticks(5);
    expect(r.loop.lastSent()?.driver).toBe('operator');
    r.loop.handBack();
    r.ticks(2);
    expect(r.loop.lastSent()?.driver).toBe('policy');
    r.loop.setAutonomy(false);
    expect(r.published.at(-1)).toMatchObject({ linearMps: 0, angularRadps: 0 });
  });

  it('stops the robot and turns autonomy off when the operator heartbeat is lost for 300 ms', () => {
    const r = rig();
    r.ticks(1);
    r.loop.setAutonomy(true);
    r.ticks(10);
    expect(r.loop.driver()).toBe('policy');
    r.ticks(3, false);
    expect(r.loop.driver()).toBe('policy'); // 300 ms of silence is still within the limit
    r.ticks(1, false);
    expect(r.loop.driver()).toBe('idle');
    expect(r.published.at(-1)).toMatchObject({ linearMps: 0, angularRadps: 0 });
    expect(r.loop.alerts().map((a) => a.key)).toContain('watchdog-heartbeat');
    r.ticks(5);
    expect(r.loop.arbiter.isAutonomous()).toBe(false);
    expect(r.loop.alerts().map((a) => a.key)).not.toContain('watchdog-heartbeat');
  });

  it('stops the robot when the loop stalls for 300 ms, and resumes when it ticks again', () => {
    const r = rig();
    r.ticks(1);
    r.loop.setAutonomy(true);
    r.ticks(10);
    const nowMs = r.now();
    const before = r.published.length;
    // The operator is still there, but no tick runs for 400 ms.
    for (const stepMs of [100, 200, 310]) {
      r.loop.heartbeat(nowMs + stepMs);
      r.loop.checkWatchdog(nowMs + stepMs);
    }
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    expect(r.loop.alerts().map((a) => a.key)).toContain('watchdog-loop');
    r.ticks(1);
    expect(r.loop.alerts().map((a) => a.key)).not.toContain('watchdog-loop');
  });

  it('marks a stream missing once it is older than its staleness limit', () => {
    const r = rig();
    r.ticks(5);
    expect(r.loop.tick().frame.missing).toEqual([]);
    const frame = r.loop.synchroniser.frame(r.now() + 600);
    expect(frame.missing).toEqual(['camera', 'scan', 'joints', 'imu', 'odom']);
    expect(frame.camera).toBeUndefined();
  });

  it("measures each stream's rate, from the first second on", () => {
    const r = rig();
    r.ticks(10);
    const early = Object.fromEntries(r.loop.synchroniser.health(r.now()).map((s) => [s.role, s.rateHz]));
    expect(early.camera).toBeGreaterThan(13);
    r.ticks(30);
    const rates = Object.fromEntries(r.loop.synchroniser.health(r.now()).map((s) => [s.role, s.rateHz]));
    expect(rates.camera).toBeCloseTo(15, 0);
    expect(rates.scan).toBeCloseTo(10, 0);
    expect(rates.joints).toBeCloseTo(50, 0);
    expect(rates.imu).toBeCloseTo(100, 0);
  });

  it('refuses a control rate above 30 Hz', () => {
    expect(() => rig(60)).toThrow(RangeError);
  });
});
