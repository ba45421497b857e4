// Fault: the robot floods the link far above its declared rates. The simulated robot is told over
// `/sim/inject` to publish odometry at 20× (1 kHz) and the camera at 20× (300 Hz) while an operator
// drives through the control loop. Checks: the link stays present and the loop keeps its rate (no
// stall, at most a tick skipped); operator commands still reach the robot within a tick; the heartbeat
// watchdog still stops the robot within 300 ms mid-flood; the streams go back to their rates after.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import type { Odometry } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { startSimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { waitForPresence } from '../support/linkEvents.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { TimedRobot } from '../support/timedRobot.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const ODOM_RATE_HZ = 50;
const CAMERA_RATE_HZ = 15;
const FLOOD_FACTOR = 20;
const FLOOD_MS = 4000;
const WATCHDOG_MS = 300;
/** The watchdog's 10 ms check, and timers running late on a loaded two-core machine. */
const SCHEDULING_SLACK_MS = 100;
/** An operator command must reach the robot within one 10 Hz tick, flood or not. */
const COMMAND_DELIVERY_LIMIT_MS = 100;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a flood far above the declared rates', () => {
  it('keeps the loop ticking, commands flowing and the watchdog on time, then returns to the declared rates', async () => {
    const robot = new TimedRobot({ camera: { widthPx: 32, heightPx: 24, rateHz: CAMERA_RATE_HZ } });
    const server = await startSimRosbridgeServer({ robot, port: 0 });
    cleanups.push(() => server.close());
    const link = new RosbridgeLink({ url: server.url, simulated: true });
    cleanups.push(() => link.close());
    await waitForPresence(link, 'present', 10_000);
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    const sent = new WaitableLog<SentCommand>('commands the loop sent');
    loop.onSent((command) => sent.push(command));
    const ticks = new WaitableLog<number>('ticks');
    loop.onTick(() => ticks.push(Date.now()));
    const odom = new WaitableLog<number>('odometry at the link');
    cleanups.push(link.subscribe<Odometry>('/odom', () => odom.push(Date.now())));
    loop.start();
    let step = 0;
    let lastHeartbeatMs = 0;
    const beat = () => {
      lastHeartbeatMs = Date.now();
      loop.heartbeat(lastHeartbeatMs);
      loop.operatorDrive({ linearMps: 0.3, angularRadps: 0.1 + 0.001 * (step++ % 500) });
    };
    let operator = setInterval(beat, 50);
    cleanups.push(async () => {
      clearInterval(operator);
      await loop.close();
    });
    await robot.received.until((all) => all.length >= 5, 'the operator driving');

    const floodAtMs = Date.now();
    const skippedBefore = loop.ticksSkipped();
    for (const [stream, rateHz] of [
      ['odom', ODOM_RATE_HZ * FLOOD_FACTOR],
      ['camera', CAMERA_RATE_HZ * FLOOD_FACTOR],
    ] as const) {
      expect(await link.callService('/sim/inject', 'reins_sim/Inject', { kind: 'flood', stream, rateHz, durationMs: FLOOD_MS }, 2000)).toMatchObject({
        injected: 'flood',
      });
    }
    // A second into the flood: it reaches the cockpit, and the loop keeps up.
    const odomFrom = odom.items.length;
    const ticksFrom = ticks.items.length;
    await ticks.until((all) => all.length >= ticksFrom + 10, 'ten ticks into the flood', 5000);
    const floodSecs = (Date.now() - floodAtMs) / 1000;
    const odomRateHz = (odom.items.length - odomFrom) / floodSecs;
    expect(odomRateHz).toBeGreaterThan(ODOM_RATE_HZ * 5);
    expect(link.presence()).toBe('present');
    expect(loop.ticksSkipped() - skippedBefore).toBeLessThanOrEqual(1);
    expect(loop.alerts().map((alert) => alert.key)).not.toContain('watchdog-loop');
    // Every command the loop sent in that second reached the robot within a tick.
    const sentInFlood = sent.items.filter((each) => each.atMs >= floodAtMs && each.delivered);
    await robot.received.until(
      (all) => sentInFlood.every((each) => all.some((got) => got.angularRadps === each.command.angularRadps)),
      'the commands sent during the flood',
    );
    const delaysMs = sentInFlood.map((each) => robot.received.items.find((got) => got.angularRadps === each.command.angularRadps)!.atMs - each.atMs);
    expect(Math.max(...delaysMs)).toBeLessThanOrEqual(COMMAND_DELIVERY_LIMIT_MS);

    // The operator's tab goes quiet mid-flood: the watchdog stops the robot on time all the same.
    clearInterval(operator);
    const quietAtMs = Date.now();
    await sent.until((all) => all.some((each) => each.atMs >= quietAtMs && each.driver === 'idle'), 'the watchdog zero', 5000);
    const stop = sent.items.find((each) => each.atMs >= quietAtMs && each.driver === 'idle')!;
    expect(stop.command).toEqual({ linearMps: 0, angularRadps: 0 });
    const stopMs = stop.atMs - lastHeartbeatMs;
    expect(stopMs).toBeLessThanOrEqual(WATCHDOG_MS + SCHEDULING_SLACK_MS);
    await robot.received.until((all) => all.some((got) => got.atMs >= stop.atMs && got.linearMps === 0 && got.angularRadps === 0), 'the zero at the robot');
    expect(Date.now() < floodAtMs + FLOOD_MS).toBe(true);

    // After the flood: the declared rate again, and the operator drives as before.
    await ticks.until(() => Date.now() > floodAtMs + FLOOD_MS + 500, 'the flood to end', FLOOD_MS + 5000);
    const calmFrom = odom.items.length;
    const calmAtMs = Date.now();
    await ticks.until((all) => all.at(-1)! > calmAtMs + 1000, 'a calm second');
    const calmRateHz = (odom.items.length - calmFrom) / ((ticks.items.at(-1)! - calmAtMs) / 1000);
    expect(calmRateHz).toBeLessThan(ODOM_RATE_HZ * 1.5);
    operator = setInterval(beat, 50);
    const againAtMs = Date.now();
    await robot.received.until((all) => all.some((got) => got.atMs > againAtMs && got.linearMps > 0), 'the operator driving again');
    console.info(
      `flood: odometry at ${odomRateHz.toFixed(0)} Hz at the link (declared ${ODOM_RATE_HZ}); ${loop.ticksSkipped() - skippedBefore} ticks skipped; ` +
        `commands reached the robot in ≤ ${Math.max(...delaysMs)} ms; watchdog zero ${stopMs} ms after the last heartbeat; ${calmRateHz.toFixed(0)} Hz after`,
    );
  }, 40_000);
});
