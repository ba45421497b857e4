// The control loop against the simulated robot in lockstep: who drives, what goes out on the wire,
// and when the watchdog stops the robot. The encoders are real ONNX files (randomly initialised
// networks of the default shapes) written to a temporary folder.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import type { ControlLoop } from '../../main/loop/controlLoop.ts';
import type { Perception } from '../../main/core/perception.ts';
import { createSimLink } from '../../main/sim/lockstepLink.ts';
import { HeldPerception } from '../fakes/heldPerception.ts';
import { lockstepLoop } from '../support/lockstepLoop.ts';

const openLoops: ControlLoop[] = [];
afterEach(async () => {
  await Promise.all(openLoops.splice(0).map((loop) => loop.close()));
});

async function rig(rateHz = 10, perception?: Perception) {
  const rigged = await lockstepLoop({ rateHz, ...(perception ? { perception } : {}) });
  openLoops.push(rigged.loop);
  return rigged;
}

describe('ControlLoop', () => {
  it('publishes nothing while idle', async () => {
    const r = await rig();
    await r.ticks(20);
    expect(r.published).toEqual([]);
    expect(r.loop.driver()).toBe('idle');
  });

  it('sends operator input at once, not at the next tick, and one zero on release', async () => {
    const r = await rig();
    await r.ticks(1);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    expect(r.published).toHaveLength(1);
    expect(r.published[0]!.linearMps).toBeGreaterThan(0);
    for (let i = 0; i < 10; i++) {
      await r.ticks(1);
      r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    }
    expect(r.link.robot.groundTruth().linearMps).toBeGreaterThan(0.2);
    const before = r.published.length;
    r.loop.operatorDrive({ linearMps: 0, angularRadps: 0 });
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    await r.ticks(10);
    expect(r.published.length).toBe(before + 1);
  });

  it('treats an operator who stops sending as released: one zero, then silence', async () => {
    const r = await rig();
    await r.ticks(1);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    await r.ticks(10);
    const zeros = r.published.filter((p) => p.linearMps === 0 && p.angularRadps === 0);
    expect(zeros).toHaveLength(1);
    expect(r.published.at(-1)).toMatchObject({ linearMps: 0, angularRadps: 0 });
  });

  it('e-stop stops at once and sends zeros at the control rate until released', async () => {
    const r = await rig();
    await r.ticks(1);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0.5 });
    const before = r.published.length;
    r.loop.estop();
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    await r.ticks(10);
    const after = r.published.slice(before);
    expect(after.length).toBeGreaterThanOrEqual(11);
    expect(after.every((p) => p.linearMps === 0 && p.angularRadps === 0)).toBe(true);
    r.loop.releaseEStop();
    const released = r.published.length;
    await r.ticks(10);
    expect(r.published.length).toBe(released);
  });

  it('lets the policy drive only with autonomy on, and an operator drive takes over', async () => {
    const r = await rig();
    await r.ticks(5);
    expect(r.published).toEqual([]);
    r.loop.setAutonomy(true);
    await r.ticks(20);
    expect(r.loop.lastSent()?.driver).toBe('policy');
    expect(r.link.robot.groundTruth().linearMps).toBeGreaterThan(0.05);
    r.loop.operatorDrive({ linearMps: -0.2, angularRadps: 0 });
    expect(r.loop.arbiter.hasTakenOver()).toBe(true);
    await r.ticks(5);
    expect(r.loop.lastSent()?.driver).toBe('operator');
    r.loop.handBack();
    await r.ticks(2);
    expect(r.loop.lastSent()?.driver).toBe('policy');
    r.loop.setAutonomy(false);
    expect(r.published.at(-1)).toMatchObject({ linearMps: 0, angularRadps: 0 });
  });

  it('stops the robot and turns autonomy off when the operator heartbeat is lost for 300 ms', async () => {
    const r = await rig();
    await r.ticks(1);
    r.loop.setAutonomy(true);
    await r.ticks(10);
    expect(r.loop.driver()).toBe('policy');
    await r.ticks(3, false);
    expect(r.loop.driver()).toBe('policy'); // 300 ms of silence is still within the limit
    await r.ticks(1, false);
    expect(r.loop.driver()).toBe('idle');
    expect(r.published.at(-1)).toMatchObject({ linearMps: 0, angularRadps: 0 });
    expect(r.loop.alerts().map((a) => a.key)).toContain('watchdog-heartbeat');
    await r.ticks(5);
    expect(r.loop.arbiter.isAutonomous()).toBe(false);
    expect(r.loop.alerts().map((a) => a.key)).not.toContain('watchdog-heartbeat');
  });

  it('stops the robot when the loop stalls for 300 ms, and resumes when it ticks again', async () => {
    const r = await rig();
    await r.ticks(1);
    r.loop.setAutonomy(true);
    await r.ticks(10);
    const nowMs = r.now();
    const before = r.published.length;
    // The operator is still there, but no tick runs for 400 ms.
    for (const stepMs of [100, 200, 310]) {
      r.loop.heartbeat(nowMs + stepMs);
      r.loop.checkWatchdog(nowMs + stepMs);
    }
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    expect(r.loop.alerts().map((a) => a.key)).toContain('watchdog-loop');
    await r.ticks(1);
    expect(r.loop.alerts().map((a) => a.key)).not.toContain('watchdog-loop');
  });

  it('marks a stream missing once it is older than its staleness limit', async () => {
    const r = await rig();
    await r.ticks(5);
    expect((await r.loop.tick()).frame.missing).toEqual([]);
    const frame = r.loop.synchroniser.frame(r.now() + 600);
    expect(frame.missing).toEqual(['camera', 'scan', 'joints', 'imu', 'odom']);
    expect(frame.camera).toBeUndefined();
  });

  it("measures each stream's rate, from the first second on", async () => {
    const r = await rig();
    await r.ticks(10);
    const early = Object.fromEntries(r.loop.synchroniser.health(r.now()).map((s) => [s.role, s.rateHz]));
    expect(early.camera).toBeGreaterThan(13);
    await r.ticks(30);
    const rates = Object.fromEntries(r.loop.synchroniser.health(r.now()).map((s) => [s.role, s.rateHz]));
    expect(rates.camera).toBeCloseTo(15, 0);
    expect(rates.scan).toBeCloseTo(10, 0);
    expect(rates.joints).toBeCloseTo(50, 0);
    expect(rates.imu).toBeCloseTo(100, 0);
  });

  it("encodes every tick with the manifest's encoders, each modality flagged present", async () => {
    const r = await rig();
    await r.ticks(3);
    const report = await r.loop.tick();
    expect(report.embedding.mask).toEqual({ camera: true, lidar: true, proprio: true });
    expect(report.embedding.values).toHaveLength(256);
    expect(r.loop.perceptionStatus().modalities.map((m) => [m.modality, m.state])).toEqual([
      ['camera', 'on'],
      ['lidar', 'on'],
      ['proprio', 'on'],
    ]);
    expect(r.loop.alerts()).toEqual([]);
  });

  it("acts on an e-stop at once while a tick waits for its encoders, and never sends that tick's policy command", async () => {
    const perception = new HeldPerception();
    const r = await rig(10, perception);
    r.loop.setAutonomy(true);
    await r.ticks(5);
    expect(r.loop.lastSent()?.driver).toBe('policy');
    expect(r.published.at(-1)!.linearMps).toBeGreaterThan(0);
    perception.hold();
    const tick = r.loop.tick();
    expect(perception.waitingCount).toBe(1);
    const before = r.published.length;
    r.loop.estop();
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    perception.release();
    expect((await tick).driver).toBe('estopped');
    expect(r.published.slice(before).every((p) => p.linearMps === 0 && p.angularRadps === 0)).toBe(true);
  });

  it('sends operator input at once while a tick waits for its encoders', async () => {
    const perception = new HeldPerception();
    const r = await rig(10, perception);
    await r.ticks(2);
    perception.hold();
    const tick = r.loop.tick();
    r.loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    expect(r.published).toHaveLength(1);
    expect(r.published[0]!.linearMps).toBeGreaterThan(0);
    perception.release();
    await tick;
    expect(r.loop.lastSent()?.driver).toBe('operator');
  });

  it('closing during a tick sends one zero at once, and the policy does not speak after it', async () => {
    const perception = new HeldPerception();
    const r = await rig(10, perception);
    r.loop.setAutonomy(true);
    await r.ticks(5);
    perception.hold();
    const tick = r.loop.tick();
    const before = r.published.length;
    const closed = r.loop.close();
    expect(r.published.slice(before)).toEqual([{ atMs: r.now(), linearMps: 0, angularRadps: 0 }]);
    perception.release();
    expect((await tick).sent).toBeUndefined();
    await closed;
    expect(r.published).toHaveLength(before + 1);
    expect(perception.closed).toBe(true);
  });

  it('never starts a tick while the last one is still encoding: the due tick is skipped and counted', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    try {
      const perception = new HeldPerception();
      const link = createSimLink({ epochMs: Date.now() });
      const loop = await createControlLoop(link, { rateHz: 10, perception });
      openLoops.push(loop);
      loop.start();
      await vi.advanceTimersByTimeAsync(100);
      expect(perception.encodes).toBe(1);
      perception.hold();
      await vi.advanceTimersByTimeAsync(100);
      expect(perception.encodes).toBe(2);
      await vi.advanceTimersByTimeAsync(200); // the ticks due at 300 and 400 ms find it still encoding
      expect(perception.encodes).toBe(2);
      expect(loop.ticksSkipped()).toBe(2);
      perception.release();
      await vi.advanceTimersByTimeAsync(100);
      expect(perception.encodes).toBe(3);
      expect(loop.ticksSkipped()).toBe(2);
      await loop.close();
      await link.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a control rate above 30 Hz', async () => {
    await expect(rig(60, new HeldPerception())).rejects.toThrow(RangeError);
  });
});
