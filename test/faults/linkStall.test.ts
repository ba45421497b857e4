// Fault: the link stalls without closing. A proxy between the RosbridgeLink and the simulated robot
// stops carrying anything either way (no messages, no pongs) while every TCP connection stays open,
// with an operator driving through it. Checks: the robot, hearing nothing, stops by its own command
// timeout; the link notices the silence within its silence timeout and refuses commands from then on
// (none is queued); when the network returns, the link recovers by itself, and nothing sent before the
// reconnect reaches the robot late: the link resets the silent connection, so what the network had not
// carried yet is dropped (the proxy, like the sender's kernel on a reset, discards what it holds).
// Not covered: a frozen robot process (SIGSTOP) whose kernel had already acknowledged the bytes reads
// them when it resumes; only its own command timeout bounds those.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { startSimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { waitForPresence } from '../support/linkEvents.ts';
import { StallingProxy } from '../support/stallingProxy.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { TimedRobot } from '../support/timedRobot.ts';
import { WaitableLog } from '../support/waitableLog.ts';
import { distinctCommands, operatorAtTheStick } from '../support/operatorAtTheStick.ts';

/** Short heartbeat timings so the suite stays fast; the defaults are 1 s pings and 4 s of silence. */
const PING_INTERVAL_MS = 200;
const SILENCE_TIMEOUT_MS = 1000;
/** The robot's own command timeout (DESIGN §6), and how long its physics takes to brake from 0.2 m/s. */
const ROBOT_COMMAND_TIMEOUT_MS = 500;
const BRAKING_ALLOWANCE_MS = 400;
/** Timer lateness on a loaded two-core machine. */
const SCHEDULING_SLACK_MS = 300;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a link that stalls without closing', () => {
  it('the robot stops by its own timeout, the link notices within its silence timeout, refuses commands, and recovers by itself', async () => {
    const robot = new TimedRobot({ camera: { widthPx: 32, heightPx: 24 } });
    const server = await startSimRosbridgeServer({ robot, port: 0 });
    cleanups.push(() => server.close());
    const proxy = await StallingProxy.start(server.port);
    cleanups.push(() => proxy.close());
    const link = new RosbridgeLink({
      url: proxy.url,
      simulated: true,
      timings: { pingIntervalMs: PING_INTERVAL_MS, silenceTimeoutMs: SILENCE_TIMEOUT_MS, backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0.2 } },
    });
    cleanups.push(() => link.close());
    await waitForPresence(link, 'present');
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    const sent = new WaitableLog<SentCommand>('commands the loop sent');
    loop.onSent((command) => sent.push(command));
    loop.start();
    const stopOperator = operatorAtTheStick(loop, distinctCommands());
    cleanups.push(async () => {
      stopOperator();
      await loop.close();
    });
    await robot.received.until((all) => all.length >= 5, 'the operator driving the robot');
    await robot.received.until(() => robot.groundTruth().linearMps > 0.1, 'the robot moving', 10_000);

    const stalledAtMs = Date.now();
    proxy.stall();
    const receivedBeforeStall = robot.received.items.length;
    // Nothing reaches the robot: it stops on its own command timeout (DESIGN §6), measured on its ground truth.
    const robotStopped = new WaitableLog<number>('robot speed');
    const watchSpeed = setInterval(() => robotStopped.push(Math.abs(robot.groundTruth().linearMps)), 10);
    cleanups.push(() => clearInterval(watchSpeed));
    await robotStopped.until((speeds) => (speeds.at(-1) ?? 1) < 0.01, 'the robot to stop by itself', 5000);
    const robotStopMs = Date.now() - stalledAtMs;
    clearInterval(watchSpeed);
    expect(robotStopMs).toBeLessThanOrEqual(ROBOT_COMMAND_TIMEOUT_MS + BRAKING_ALLOWANCE_MS + SCHEDULING_SLACK_MS);

    // The link notices the silence (pings unanswered) and stops taking commands.
    await waitForPresence(link, 'reconnecting', SILENCE_TIMEOUT_MS + PING_INTERVAL_MS + SCHEDULING_SLACK_MS + 2000);
    const noticedAtMs = Date.now();
    const detectMs = noticedAtMs - stalledAtMs;
    expect(detectMs).toBeGreaterThanOrEqual(SILENCE_TIMEOUT_MS);
    expect(detectMs).toBeLessThanOrEqual(SILENCE_TIMEOUT_MS + PING_INTERVAL_MS + SCHEDULING_SLACK_MS);
    expect(link.alerts().find((alert) => alert.key === 'connection')?.message).toMatch(/no answer from the robot/);
    await sent.until((all) => all.filter((each) => each.atMs > noticedAtMs && !each.delivered).length >= 5, 'commands refused while the link is down');
    expect(sent.items.filter((each) => each.atMs > noticedAtMs).every((each) => !each.delivered || link.presence() === 'present')).toBe(true);
    const lastDeliveredBeforeNotice = sent.items.filter((each) => each.atMs <= noticedAtMs && each.delivered).at(-1)!;

    // The network returns: the link reconnects by itself and the operator drives again.
    const resumedAtMs = Date.now();
    proxy.resume();
    await waitForPresence(link, 'present', 10_000);
    const recoverMs = Date.now() - resumedAtMs;
    const presentAtMs = Date.now();
    await robot.received.until((all) => all.some((each) => each.atMs > presentAtMs), 'the operator driving the robot again');
    await robot.received.until(() => robot.groundTruth().linearMps > 0.1, 'the robot moving again', 10_000);
    stopOperator();

    // After the stall the robot gets only commands of the new connection: none the loop sent while the
    // link was down (refused, never queued), and none of those in flight on the stalled connection,
    // which the link resets rather than closes so they cannot arrive seconds late when the network returns.
    const afterStall = robot.received.items.slice(receivedBeforeStall);
    const deliveredAfterReconnect = sent.items.filter((each) => each.delivered && each.atMs >= presentAtMs - 50).map((each) => each.command);
    const late = afterStall.filter(
      (each) => !deliveredAfterReconnect.some((command) => command.angularRadps === each.angularRadps && command.linearMps === each.linearMps),
    );
    expect(late, 'commands sent before the reconnect that reached the robot after the stall').toEqual([]);
    console.info(
      `link stall: robot stopped by itself ${robotStopMs} ms after the stall; link noticed after ${detectMs} ms; ` +
        `recovered ${recoverMs} ms after the network returned; ${afterStall.length} commands after the stall, all from the new connection ` +
        `(the last delivered before the link noticed was sent ${lastDeliveredBeforeNotice.atMs - stalledAtMs} ms into the stall)`,
    );
  }, 40_000);
});
