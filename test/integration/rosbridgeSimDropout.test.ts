// A real rosbridge dropout between the link and the simulated robot: the sim's server closes (its
// clients cut off, the port refusing connections) and a new server comes up on the same port with the
// same robot. What reaches the robot is read on the robot's side, at its drive input. The issue's
// rule: after a dropout and reconnect, no command published before or during the dropout reaches the
// robot; the only commands after the reconnect are ones issued after it. Checked for the link alone
// and for the control loop with an operator driving straight through the dropout.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { createControlLoop } from '../../main/session/loopWiring.ts';
import { twistFromDrive, type DriveCommand } from '../../main/core/messages.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { waitForPresence } from '../support/linkEvents.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';
import { WaitableLog } from '../support/waitableLog.ts';
import { distinctCommands, operatorAtTheStick } from '../support/operatorAtTheStick.ts';

/** Where the test stands: the first server up, no server, or the second server up. */
type Phase = 'before' | 'down' | 'after';

/** The simulated robot, noting every drive command that reaches it and the phase it arrived in. */
class CommandLoggingRobot extends SimRobot {
  readonly received = new WaitableLog<DriveCommand & { phase: Phase }>('drive commands at the robot');
  phase: Phase = 'before';

  override drive(command: DriveCommand): boolean {
    this.received.push({ linearMps: command.linearMps, angularRadps: command.angularRadps, phase: this.phase });
    return super.drive(command);
  }

  receivedIn(phase: Phase): DriveCommand[] {
    return this.received.items.filter((each) => each.phase === phase).map(({ linearMps, angularRadps }) => ({ linearMps, angularRadps }));
  }
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function rig() {
  const robot = new CommandLoggingRobot({ camera: { widthPx: 32, heightPx: 24 } });
  let server: SimRosbridgeServer = await startSimRosbridgeServer({ robot, port: 0 });
  const port = server.port;
  cleanups.push(() => server.close());
  const link = new RosbridgeLink({ url: server.url, simulated: true, timings: { backoff: { initialMs: 20, maxMs: 100, factor: 2, jitter: 0.2 } } });
  cleanups.push(() => link.close());
  await waitForPresence(link, 'present');
  await link.topicsAsked();
  return {
    robot,
    link,
    /** The server goes away with its clients cut off; resolves once the link has noticed. */
    async dropOut(): Promise<void> {
      robot.phase = 'down';
      await server.close();
      await waitForPresence(link, 'reconnecting');
    },
    /** A new server on the same port, with the same robot; the link has not reconnected yet. */
    async comeBack(): Promise<void> {
      server = await startSimRosbridgeServer({ robot, port });
      robot.phase = 'after';
    },
  };
}

const forward = (linearMps: number) => twistFromDrive({ linearMps, angularRadps: 0 });
const speeds = (commands: DriveCommand[]) => commands.map((command) => command.linearMps);

describe('a rosbridge dropout between the link and the simulated robot', () => {
  it('after a dropout and reconnect, no command published before or during it reaches the robot: only ones issued after', async () => {
    const { robot, link, dropOut, comeBack } = await rig();
    for (const speed of [0.11, 0.12, 0.13]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await robot.received.until(() => robot.receivedIn('before').length === 3, 'the commands before the dropout');

    await dropOut();
    for (const speed of [0.21, 0.22, 0.23]) expect(link.publish('/cmd_vel', forward(speed))).toBe(false);
    await comeBack();
    // The robot is back but the link has not reconnected: still dropped, not held for later.
    expect(link.presence()).toBe('reconnecting');
    for (const speed of [0.24, 0.25]) expect(link.publish('/cmd_vel', forward(speed))).toBe(false);

    await waitForPresence(link, 'present');
    await link.topicsAsked();
    for (const speed of [0.31, 0.32, 0.33]) expect(link.publish('/cmd_vel', forward(speed))).toBe(true);
    await robot.received.until(() => robot.receivedIn('after').length >= 3, 'the commands after the reconnect');
    expect(speeds(robot.receivedIn('before'))).toEqual([0.11, 0.12, 0.13]);
    expect(robot.receivedIn('down')).toEqual([]);
    // Anything replayed would have gone out on connecting, ahead of 0.31 on the same socket.
    expect(speeds(robot.receivedIn('after'))).toEqual([0.31, 0.32, 0.33]);
  });

  it('through the control loop, with the operator driving through the dropout: no burst of stale commands on reconnect', async () => {
    const { robot, link, dropOut, comeBack } = await rig();
    const loop = await createControlLoop(link, { perception: await loadPerception(testEncoderManifest()) });
    const sent = new WaitableLog<SentCommand & { phase: Phase }>('commands the loop sent');
    loop.onSent((command) => sent.push({ ...command, phase: robot.phase }));
    loop.start();
    const stopOperator = operatorAtTheStick(loop, distinctCommands());
    cleanups.push(async () => {
      stopOperator();
      await loop.close();
    });

    await robot.received.until(() => robot.receivedIn('before').length >= 5, 'the operator driving the robot');
    await dropOut();
    await sent.until((all) => all.filter((each) => each.phase === 'down' && !each.delivered).length >= 5, 'the operator driving into the dropout');
    await comeBack();
    await waitForPresence(link, 'present');
    await robot.received.until(() => robot.receivedIn('after').length >= 5, 'the operator driving the robot again');
    stopOperator();
    await loop.close(); // one last zero: the operator let go

    // Sent after the reconnect and delivered: exactly what the robot received, in order, nothing more.
    const deliveredAfter = sent.items.filter((each) => each.phase === 'after' && each.delivered).map((each) => each.command);
    await robot.received.until(() => robot.receivedIn('after').length >= deliveredAfter.length, 'the last command to arrive');
    expect(robot.receivedIn('after')).toEqual(deliveredAfter);
    expect(deliveredAfter.at(-1)).toEqual({ linearMps: 0, angularRadps: 0 });
    // While the server was gone nothing arrived, and the link refused what the loop sent once it knew.
    expect(robot.receivedIn('down')).toEqual([]);
    const sentWhileDown = sent.items.filter((each) => each.phase === 'down');
    expect(sentWhileDown.filter((each) => !each.delivered).length).toBeGreaterThanOrEqual(5);
    // Before the dropout the robot received what was sent, in order; at most the last few, in
    // flight when the server went away, were lost with it (and never delivered later).
    const deliveredBefore = sent.items.filter((each) => each.phase === 'before' && each.delivered).map((each) => each.command);
    const receivedBefore = robot.receivedIn('before');
    expect(receivedBefore).toEqual(deliveredBefore.slice(0, receivedBefore.length));
    expect(deliveredBefore.length - receivedBefore.length).toBeLessThanOrEqual(2);
  });
});
