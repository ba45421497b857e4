import type { Driver } from '../core/tickReport.ts';
import { describe, expect, it } from 'vitest';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import { DEFAULT_TOPIC_MAP } from '../core/link.ts';
import type { OpenedRobot, RobotSpec } from '../links/robotAddress.ts';
import { SwitchableLink } from '../links/switchableLink.ts';
import { DEFAULT_ROBOT_TOPICS } from '../core/contract.ts';
import { RobotConnections } from './robotConnections.ts';

function setUp(next: () => ScriptedLink, driver: Driver = 'idle') {
  const first = new ScriptedLink('first');
  const link = new SwitchableLink(first);
  const opened: ScriptedLink[] = [];
  const asked: RobotSpec[] = [];
  let who = driver;
  const connections = new RobotConnections(
    link,
    { robot: 'sim', opened: { link: first, close: () => first.close() } },
    {
      openRobot: async (spec): Promise<OpenedRobot> => {
        asked.push(spec);
        const robot = next();
        opened.push(robot);
        return { link: robot, close: () => robot.close() };
      },
      connectTimeoutMs: 50,
      driver: () => who,
    },
  );
  return { first, link, opened, asked, connections, drive: (d: Driver) => (who = d) };
}

describe('RobotConnections', () => {
  it("offers the UI the links' default topic map", () => {
    expect(DEFAULT_ROBOT_TOPICS).toEqual(DEFAULT_TOPIC_MAP);
  });

  it('switches to a robot that answers, and closes the old one after the swap', async () => {
    const { first, link, opened, connections } = setUp(() => new ScriptedLink('second'));
    const started = connections.connect('ws://10.0.0.5:9090', { imu: '/front/imu' });
    expect(started.ok).toBe(true);
    expect(connections.state()).toEqual({ robot: 'ws://10.0.0.5:9090', status: 'connecting' });
    await started.settled;
    expect(connections.state()).toEqual({ robot: 'ws://10.0.0.5:9090', status: 'connected' });
    expect(link.attached()).toBe(opened[0]);
    expect(first.closed).toBe(true);
    expect(connections.topics().imu).toBe('/front/imu');
  });

  it('refuses an address it cannot read, at once and in words', () => {
    const { asked, connections } = setUp(() => new ScriptedLink('never'));
    const started = connections.connect('tcp://robot', undefined);
    expect(started).toMatchObject({ ok: false, code: 'bad-request' });
    expect(!started.ok && started.message).toMatch(/expected "sim", ws:\/\/HOST:PORT/);
    expect(asked).toEqual([]);
    expect(connections.state().status).toBe('connected');
  });

  it.each(['operator', 'policy'] as const)('refuses to switch while the %s drives', (driver) => {
    const { first, link, asked, connections } = setUp(() => new ScriptedLink('never'), driver);
    const started = connections.connect('sim', undefined);
    expect(started).toMatchObject({ ok: false, code: 'refused' });
    expect(!started.ok && started.message).toMatch(new RegExp(`the ${driver} is driving: stop first`));
    expect(asked).toEqual([]);
    expect(link.attached()).toBe(first);
  });

  it('reports a robot that never answers as failed, with its alerts, and keeps the old robot', async () => {
    const { first, link, opened, connections } = setUp(() => {
      const silent = new ScriptedLink('silent', 'reconnecting');
      silent.raise([
        {
          key: 'connection',
          severity: 'warn',
          message: 'Cannot reach the robot at ws://127.0.0.1:1/ (ECONNREFUSED).',
          hint: 'Check that rosbridge_server is running.',
        },
      ]);
      return silent;
    });
    const started = connections.connect('ws://127.0.0.1:1', undefined);
    await started.settled;
    const state = connections.state();
    expect(state.status).toBe('failed');
    expect(state.error).toBe(
      'nothing answered at ws://127.0.0.1:1 within 0.1 s. Cannot reach the robot at ws://127.0.0.1:1/ (ECONNREFUSED). Check that rosbridge_server is running.',
    );
    expect(opened[0]!.closed).toBe(true);
    expect(link.attached()).toBe(first);
    expect(first.closed).toBe(false);
  });

  it('does not swap in a robot if someone started driving while it connected', async () => {
    const { first, link, opened, connections, drive } = setUp(() => new ScriptedLink('second', 'connecting'));
    const started = connections.connect('sim', undefined);
    drive('operator');
    opened[0]?.setPresence('present');
    await started.settled;
    expect(connections.state()).toMatchObject({ status: 'failed', error: expect.stringMatching(/operator is driving/) });
    expect(link.attached()).toBe(first);
    expect(opened[0]!.closed).toBe(true);
  });

  it('refuses a second connect while one is under way', () => {
    const { connections } = setUp(() => new ScriptedLink('slow', 'connecting'));
    expect(connections.connect('sim', undefined).ok).toBe(true);
    expect(connections.connect('sim', undefined)).toMatchObject({ ok: false, code: 'refused' });
  });
});
