// Fault: the robot's rosbridge server is killed (SIGKILL of the `reins sim` process: no close frame,
// the port refusing) while an operator drives through the control loop, and started again on the same
// port. Checks: the link notices at once and refuses every command while the robot is gone (none
// queued); the operator letting go during the outage stops the loop at once; the new robot gets no
// command until the operator drives again; the link reconnects by itself within its backoff.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import type { Odometry } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { nextMessages, waitForMessage, waitForPresence } from '../support/linkEvents.ts';
import { killSimChild, startSimChild, type SimChild } from '../support/simChildProcess.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';
import { operatorAtTheStick } from '../support/operatorAtTheStick.ts';

const BACKOFF = { initialMs: 20, maxMs: 200, factor: 2, jitter: 0.2 };
/** A reconnect attempt lands within the longest backoff; the handshake and rosapi discovery take the rest. */
const RECOVERY_LIMIT_MS = BACKOFF.maxMs * (1 + BACKOFF.jitter) + 1500;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function sim(port = 0): Promise<SimChild> {
  const started = await startSimChild(port);
  cleanups.push(() => killSimChild(started));
  return started;
}

describe('the rosbridge server killed and restarted', () => {
  it('refuses commands while it is gone, sends nothing stale to the new robot, and reconnects by itself', async () => {
    const first = await sim();
    const link = new RosbridgeLink({ url: first.url, simulated: true, timings: { backoff: BACKOFF } });
    cleanups.push(() => link.close());
    await waitForPresence(link, 'present', 10_000);
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    const sent = new WaitableLog<SentCommand>('commands the loop sent');
    loop.onSent((command) => sent.push(command));
    loop.start();
    const stopOperator = operatorAtTheStick(loop, () => ({ linearMps: 0.3, angularRadps: 0 }));
    cleanups.push(async () => {
      stopOperator();
      await loop.close();
    });
    await waitForMessage<Odometry>(link, '/odom', ({ msg }) => msg.linearMps > 0.1, 10_000);

    const killedAtMs = Date.now();
    await killSimChild(first);
    await waitForPresence(link, 'reconnecting', 2000);
    const noticedMs = Date.now() - killedAtMs;
    await sent.until(
      (all) => all.filter((each) => each.atMs > killedAtMs + noticedMs && !each.delivered).length >= 5,
      'commands refused while the robot is gone',
    );
    // The operator lets go during the outage: one zero, refused like the rest, then silence.
    stopOperator();
    const releasedAtMs = Date.now();
    await sent.until((all) => all.some((each) => each.atMs >= releasedAtMs && each.command.linearMps === 0), 'the release');
    expect(sent.items.filter((each) => each.atMs > killedAtMs + noticedMs).every((each) => !each.delivered)).toBe(true);

    await sim(first.port);
    const restartedAtMs = Date.now(); // the new server listens
    await waitForPresence(link, 'present', RECOVERY_LIMIT_MS + 5000);
    const recoveredMs = Date.now() - restartedAtMs;
    expect(recoveredMs).toBeLessThanOrEqual(RECOVERY_LIMIT_MS);
    // The new robot hears nothing from the cockpit (nobody drives): it stands still, message after message.
    const standing = await nextMessages<Odometry>(link, '/odom', 10, undefined, 10_000);
    expect(standing.every(({ msg }) => Math.abs(msg.linearMps) < 0.01)).toBe(true);
    const releaseZero = sent.items.find((each) => each.atMs >= releasedAtMs && each.command.linearMps === 0)!;
    expect(sent.items.filter((each) => each.atMs > releaseZero.atMs && each.command.linearMps !== 0)).toEqual([]);

    // …and takes the operator's commands once they drive again.
    const driveAgain = setInterval(() => {
      loop.heartbeat();
      loop.operatorDrive({ linearMps: 0.3, angularRadps: 0 });
    }, 50);
    cleanups.push(() => clearInterval(driveAgain));
    await waitForMessage<Odometry>(link, '/odom', ({ msg }) => msg.linearMps > 0.1, 10_000);
    console.info(
      `rosbridge server killed: link noticed after ${noticedMs} ms; reconnected ${recoveredMs} ms after the restart; the new robot got nothing stale`,
    );
  }, 60_000);
});
