import { setImmediate as nextTurn } from 'node:timers/promises';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeUtilityProcess, resetFakeElectron, utilityProcess } from '../test/fakes/electron.ts';
import { CoreProcess, CoreStartError, LineTail, coreArgs, coreLaunchFromArgv, uiAddressFromLine, type CoreProcessOptions } from './core.ts';

const TOKEN = 'tok_en-123.456~7890';
const CLI_PATH = '/opt/reins/main/cli/reins.mjs';
const UI_LINE = `Reins UI: http://127.0.0.1:41234/#token=${TOKEN}\n`;

beforeEach(() => resetFakeElectron());

function startCore(options: Partial<CoreProcessOptions> = {}): { core: CoreProcess; child: FakeUtilityProcess } {
  const core = CoreProcess.spawn((path, args, forkOptions) => utilityProcess.fork(path, args, forkOptions), {
    cliPath: CLI_PATH,
    launch: { token: TOKEN },
    ...options,
  });
  const child = utilityProcess.forks.at(-1);
  if (!child) throw new Error('the core was not forked');
  return { core, child };
}

describe('launching the core', () => {
  it('forks the CLI headless on a free port with its token, piping stdout and stderr', () => {
    const { child } = startCore({ launch: { token: TOKEN, robot: 'ws://robot.local:9090' } });

    expect(child.modulePath).toBe(CLI_PATH);
    expect(child.args).toEqual(['start', '--headless', '--port=0', `--token=${TOKEN}`, '--robot=ws://robot.local:9090']);
    expect(child.options).toEqual({ stdio: 'pipe', serviceName: 'Reins core' });
  });

  it('forwards --robot from after `--` and nothing else', () => {
    const launch = coreLaunchFromArgv(
      ['/usr/bin/electron', '.', '--', '--robot', 'serial:///dev/ttyUSB0', '--port', '80', '--host', '0.0.0.0'],
      () => 'generated',
    );

    expect(coreArgs(launch)).toEqual(['start', '--headless', '--port=0', '--token=generated', '--robot=serial:///dev/ttyUSB0']);
  });

  it('forwards the encoder manifest', () => {
    const launch = coreLaunchFromArgv(['/usr/bin/electron', '.', '--', '--encoders', '/data/encoders/manifest.json'], () => 'g');
    expect(coreArgs(launch)).toEqual(['start', '--headless', '--port=0', '--token=g', '--encoders=/data/encoders/manifest.json']);
  });

  it('forwards the robot model file', () => {
    const launch = coreLaunchFromArgv(['/usr/bin/electron', '.', '--', '--urdf', '/data/robot.urdf'], () => 'g');
    expect(coreArgs(launch)).toEqual(['start', '--headless', '--port=0', '--token=g', '--urdf=/data/robot.urdf']);
  });

  it('forwards a xacro model’s arguments and package folders, each as often as given', () => {
    const launch = coreLaunchFromArgv(
      [
        '/usr/bin/electron',
        '.',
        '--',
        '--urdf',
        '/data/robot.urdf.xacro',
        '--xacro-arg',
        'use_lidar:=true',
        '--ros-package=arm_description=/opt/arm',
        '--xacro-arg=prefix:=left_',
        '--ros-package',
        'base_description=/opt/base',
      ],
      () => 'g',
    );
    expect(coreArgs(launch)).toEqual([
      'start',
      '--headless',
      '--port=0',
      '--token=g',
      '--urdf=/data/robot.urdf.xacro',
      '--xacro-arg=use_lidar:=true',
      '--xacro-arg=prefix:=left_',
      '--ros-package=arm_description=/opt/arm',
      '--ros-package=base_description=/opt/base',
    ]);
    expect(() => coreLaunchFromArgv(['/usr/bin/electron', '.', '--', '--xacro-arg'], () => 'g')).toThrow('--xacro-arg needs a value: --xacro-arg NAME:=VALUE');
  });

  it('reads --robot=X and a packaged app argv without `--`', () => {
    expect(coreLaunchFromArgv(['/opt/Reins/reins', '--robot=sim'], () => 'g').robot).toBe('sim');
  });

  it('starts without a robot when none is given', () => {
    expect(coreLaunchFromArgv(['/usr/bin/electron', '.'], () => 'g')).toEqual({ token: 'g', robot: undefined });
  });

  it('generates a fresh 256-bit token unless one is passed', () => {
    const first = coreLaunchFromArgv(['electron', '.']).token;
    const second = coreLaunchFromArgv(['electron', '.']).token;

    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(coreLaunchFromArgv(['electron', '.', '--', '--token', TOKEN]).token).toBe(TOKEN);
  });

  it('refuses a passed token the core would refuse: too short, or not URL-safe', () => {
    expect(() => coreLaunchFromArgv(['electron', '.', '--', '--token', 'short'])).toThrow(/--token/);
    expect(() => coreLaunchFromArgv(['electron', '.', '--', '--token', 'a b&c-0123456789abcdef'])).toThrow(/--token/);
    expect(() => coreLaunchFromArgv(['electron', '.', '--', '--token'])).toThrow(/--token/);
  });
});

describe("reading the core's UI address", () => {
  it('resolves with the address from the "Reins UI:" line', async () => {
    const { core, child } = startCore();
    child.print(UI_LINE);

    expect((await core.ready).href).toBe(`http://127.0.0.1:41234/#token=${TOKEN}`);
  });

  it('assembles the line from chunks split anywhere, across other output', async () => {
    const { core, child } = startCore();
    const text = `starting\r\n${UI_LINE}`;
    for (const piece of [text.slice(0, 3), text.slice(3, 17), text.slice(17, 30), text.slice(30)]) {
      child.print(piece);
      await nextTurn();
    }

    expect((await core.ready).origin).toBe('http://127.0.0.1:41234');
  });

  it('does not resolve on an unfinished line', async () => {
    const { core, child } = startCore();
    child.print(UI_LINE.trimEnd());
    await nextTurn();

    const settled = await Promise.race([core.ready.then(() => 'resolved'), nextTurn().then(() => 'pending')]);
    expect(settled).toBe('pending');
    child.print('\n');
    expect((await core.ready).port).toBe('41234');
  });

  it("rejects with the core's stderr when it exits before printing the line", async () => {
    const { core, child } = startCore();
    child.log('loading robot config\n');
    child.log('Error: cannot reach ws://robot.local:9090\n    at connect (links/rosbridge.ts:42)');
    child.exit(1);

    const error = await core.ready.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(CoreStartError);
    expect(error).toMatchObject({ exitCode: 1, message: expect.stringMatching(/exited \(code 1\)/) });
    expect((error as CoreStartError).stderrTail).toBe(
      'loading robot config\nError: cannot reach ws://robot.local:9090\n    at connect (links/rosbridge.ts:42)',
    );
  });

  it('rejects when the core stays silent past the start timeout, and stops it', async () => {
    const { core, child } = startCore({ startTimeoutMs: 20 });

    await expect(core.ready).rejects.toThrow(/did not report its UI address/);
    expect(child.killRequests).toBe(1);
  });

  it('refuses an address that is not on this machine, or carries another token', () => {
    expect(() => uiAddressFromLine(`Reins UI: http://10.0.0.5:80/#token=${TOKEN}`, TOKEN)).toThrow(/not on this/);
    expect(() => uiAddressFromLine(`Reins UI: https://127.0.0.1:80/#token=${TOKEN}`, TOKEN)).toThrow(/not on this/);
    expect(() => uiAddressFromLine('Reins UI: http://127.0.0.1:80/#token=other', TOKEN)).toThrow(/token/);
    expect(() => uiAddressFromLine('Reins UI: ::::', TOKEN)).toThrow(/unreadable/);
    expect(uiAddressFromLine('Reins sim: http://127.0.0.1:9090/', TOKEN)).toBeUndefined();
  });

  it('rejects the start when the core prints a foreign address', async () => {
    const { core, child } = startCore();
    child.print('Reins UI: http://evil.example:80/#token=x\n');

    await expect(core.ready).rejects.toThrow(/not on this machine/);
    expect(child.killRequests).toBe(1);
  });
});

describe('watching and stopping the core', () => {
  it('reports an exit nobody asked for, with the last stderr lines', async () => {
    const { core, child } = startCore();
    child.print(UI_LINE);
    await core.ready;
    const onExit = vi.fn();
    core.onUnexpectedExit(onExit);

    child.log('FATAL: out of memory\n');
    child.exit(134);
    await vi.waitFor(() => expect(onExit).toHaveBeenCalledOnce());

    expect(onExit).toHaveBeenCalledWith({ code: 134, stderrTail: 'FATAL: out of memory' });
    expect(core.running).toBe(false);
  });

  it('stops the core with SIGTERM and waits for it, without calling that unexpected', async () => {
    const { core, child } = startCore();
    child.print(UI_LINE);
    await core.ready;
    const onExit = vi.fn();
    core.onUnexpectedExit(onExit);

    await core.stop();

    expect(child.killRequests).toBe(1);
    expect(core.running).toBe(false);
    await nextTurn();
    expect(onExit).not.toHaveBeenCalled();
  });

  it('kills a core that ignores SIGTERM once the stop timeout passes', async () => {
    const killProcess = vi.fn();
    const { core, child } = startCore({ killProcess });
    child.exitsOnKill = false;

    await core.stop(10);

    expect(killProcess).toHaveBeenCalledWith(4242, 'SIGKILL');
  });

  it('passes stderr on as it arrives', async () => {
    const onStderr = vi.fn();
    const { child } = startCore({ onStderr });
    child.log('{"level":30,"msg":"link up"}\n');

    await vi.waitFor(() => expect(onStderr).toHaveBeenCalledWith('{"level":30,"msg":"link up"}\n'));
  });
});

describe('the stderr tail', () => {
  it('keeps only the last lines', () => {
    const tail = new LineTail(3);
    tail.push('one\ntwo\nthree\nfour\nfi');
    tail.push('ve\n');

    expect(tail.text()).toBe('three\nfour\nfive');
  });
});
