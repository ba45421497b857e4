// Fault: the UI tab is closed while the operator drives. A socket client sends heartbeats and drive
// commands every 100 ms, as the cockpit does, then its connection drops abruptly (no close frame, no
// release). Checks: the core's watchdog sends a zero within its 300 ms period of the last heartbeat
// (not before), the robot comes to rest, and nothing more is published while nobody drives.
import type { SentCommand } from '../../main/core/tickReport.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { startCore, type RunningCore } from '../support/runningCore.ts';
import { SocketClient } from '../support/socketClient.ts';
import { WaitableLog } from '../support/waitableLog.ts';

const WATCHDOG_MS = 300;
/** The watchdog is checked every 10 ms; timers run late on a loaded two-core machine. */
const CHECK_AND_SCHEDULING_SLACK_MS = 100;

let core: RunningCore | undefined;
afterEach(async () => {
  await core?.close();
  core = undefined;
});

describe('the UI tab closed while driving', () => {
  it('stops the robot within the watchdog period of the last heartbeat, then publishes nothing', async () => {
    core = await startCore();
    const { loop, robot } = core;
    const sent = new WaitableLog<SentCommand>('commands the loop sent');
    loop.onSent((command) => sent.push(command));
    const speeds = new WaitableLog<number>('the robot speed at each tick');
    loop.onTick(() => speeds.push(robot.groundTruth().linearMps));

    const client = await SocketClient.open(core.socketUrl(), core.origin);
    await client.next((event) => event.type === 'hello');
    let lastHeartbeatMs = 0;
    let closedAtMs: number | undefined;
    let beats = 0;
    const tab = setInterval(() => {
      lastHeartbeatMs = Date.now();
      client.send({ type: 'heartbeat', sentAtMs: lastHeartbeatMs });
      client.send({ type: 'drive', linearMps: 0.4, angularRadps: 0 });
      // Closed right after a heartbeat, mid-drive: the socket is destroyed, no close handshake.
      if (++beats >= 10 && robot.groundTruth().linearMps > 0.2) {
        clearInterval(tab);
        closedAtMs = Date.now();
        client.socket.terminate();
      }
    }, 100);
    try {
      await sent.until(() => closedAtMs !== undefined, 'the operator driving, then the tab closing', 15_000);
    } finally {
      clearInterval(tab);
    }
    const isStop = (each: SentCommand) => each.atMs >= closedAtMs! && isZero(each);
    await sent.until((all) => all.some(isStop), 'the watchdog zero');
    const stop = sent.items.find(isStop)!;
    const stopMs = stop.atMs - lastHeartbeatMs;
    expect(stop).toMatchObject({ driver: 'idle', delivered: true });
    expect(stopMs).toBeGreaterThan(WATCHDOG_MS);
    expect(stopMs).toBeLessThanOrEqual(WATCHDOG_MS + CHECK_AND_SCHEDULING_SLACK_MS);
    // Between the close and the stop, only the operator's last commands: nothing drives after the zero.
    expect(sent.items.filter((each) => each.atMs > stop.atMs)).toEqual([]);
    // The operator's last drive command goes stale (300 ms) as the heartbeat lapses: on a loaded
    // machine the tick that notices the stale command may send the zero a few ms before the watchdog
    // check raises its alert. Either way the robot stopped in time; the alert follows within a tick.
    await speeds.until(() => loop.alerts().some((alert) => alert.key === 'watchdog-heartbeat'), 'the watchdog’s alert', 1000);

    const stoppedFrom = speeds.items.length;
    await speeds.until((all) => Math.abs(all.at(-1)!) < 0.01, 'the robot at rest', 5000);
    const restMs = Date.now() - closedAtMs!;
    // Idle means silent: no command at all over the next ten ticks.
    await speeds.until((all) => all.length >= stoppedFrom + 10, 'ten more ticks');
    expect(sent.items.filter((each) => each.atMs > stop.atMs)).toEqual([]);
    console.info(`tab closed: zero sent ${stopMs} ms after the last heartbeat; robot at rest ${restMs} ms after the close`);
  }, 30_000);
});

function isZero(sent: SentCommand): boolean {
  return sent.command.linearMps === 0 && sent.command.angularRadps === 0;
}
