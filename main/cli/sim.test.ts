import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { UsageError } from './usageError.ts';
import { parseSimArgs } from './sim.ts';

const REINS = fileURLToPath(new URL('./reins.mjs', import.meta.url));

describe('parseSimArgs', () => {
  it('defaults to the robot of issue 3 on loopback port 9090', () => {
    expect(parseSimArgs([])).toEqual({
      rosbridgePort: 9090,
      host: '127.0.0.1',
      insecure: false,
      arenaSeed: 1,
      episodeSeed: 1,
      task: 'reach',
      camera: undefined,
      scan: undefined,
      points: undefined,
      prerenderedCamera: false,
      identity: undefined,
      rosVersion: 1,
      commandType: 'twist',
      clockAheadSecs: 0,
      foxglovePort: undefined,
      foxgloveLegacy: false,
      rosapi: true,
      robotDescriptionTopic: true,
    });
  });

  it('reads every option', () => {
    const args = parseSimArgs(
      [
        '--rosbridge-port',
        '0',
        '--arena-seed',
        '7',
        '--seed',
        '12',
        '--task',
        'reach',
        '--camera',
        '640x480@30',
        '--scan',
        '720@20',
        '--points',
        '32x1024@20',
        '--prerendered-camera',
      ].concat(['--identity', 'abcdefghijklmnop', '--command-type', 'twist-stamped', '--clock-ahead-s', '10']),
    );
    expect(args).toMatchObject({
      rosbridgePort: 0,
      arenaSeed: 7,
      episodeSeed: 12,
      camera: { widthPx: 640, heightPx: 480, rateHz: 30 },
      scan: { beams: 720, rateHz: 20 },
      points: { enabled: true, layers: 32, beams: 1024, rateHz: 20 },
      prerenderedCamera: true,
      identity: 'abcdefghijklmnop',
      rosVersion: 1,
      commandType: 'twist-stamped',
      clockAheadSecs: 10,
      foxgloveLegacy: false,
      rosapi: true,
    });
  });

  it('serves the foxglove protocol beside rosbridge where asked, the old subprotocol only with --foxglove-legacy', () => {
    expect(parseSimArgs(['--foxglove-port', '8765'])).toMatchObject({ foxglovePort: 8765, foxgloveLegacy: false });
    expect(parseSimArgs(['--ros2', '--no-rosapi'])).toMatchObject({ rosVersion: 2, rosapi: false });
    expect(parseSimArgs(['--foxglove-port', '0', '--foxglove-legacy'])).toMatchObject({ foxglovePort: 0, foxgloveLegacy: true });
  });

  it.each([
    [['--rosbridge-port', '70000'], /--rosbridge-port/],
    [['--camera', '1280x720@30'], /--camera/],
    [['--camera', '160x120@60'], /--camera/],
    [['--camera', '160x120'], /--camera/],
    [['--scan', '0@10'], /--scan/],
    [['--points', '16x360'], /--points/],
    [['--points', '0x360@10'], /--points/],
    [['--scan', '360@500'], /--scan/],
    [['--seed=-3'], /--seed/],
    [['--arena-seed', '1.5'], /--arena-seed/],
    [['--task', 'dance'], /--task/],
    [['--identity', 'short'], /--identity/],
    [['--command-type', 'twist_stamped'], /--command-type/],
    [['--clock-ahead-s', 'soon'], /--clock-ahead-s/],
    [['--clock-ahead-s', '1e9'], /--clock-ahead-s/],
    [['--foxglove-port', '99999'], /--foxglove-port/],
    [['--foxglove-legacy'], /--foxglove-legacy needs --foxglove-port/],
  ])('refuses %j with a usage error naming the option', (args, message) => {
    expect(() => parseSimArgs(args)).toThrow(UsageError);
    expect(() => parseSimArgs(args)).toThrow(message);
  });

  it('with --ros2 behaves as a ROS 2 robot, whose /cmd_vel takes TwistStamped unless told otherwise', () => {
    expect(parseSimArgs(['--ros2'])).toMatchObject({ rosVersion: 2, commandType: 'twist-stamped' });
    expect(parseSimArgs(['--ros2', '--command-type', 'twist'])).toMatchObject({ rosVersion: 2, commandType: 'twist' });
  });

  it('takes every task of the simulated robot, and refuses another by name, listing them', () => {
    for (const task of ['reach', 'dock', 'corridor']) expect(parseSimArgs(['--task', task]).task).toBe(task);
    expect(() => parseSimArgs(['--task', 'dance'])).toThrow('--task "dance" is not a task of the simulated robot: pick one of reach, dock, corridor');
  });
});

describe('reins sim', () => {
  it('prints one line with its address, answers /sim/identify, and exits cleanly on SIGTERM', async () => {
    const identity = 'cli-identity-0123456789';
    const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', '--identity', identity, '--camera', '32x24@5'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stdoutLines: string[] = [];
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address line within 15 s; stderr:\n${stderr}`)), 15_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        stdoutLines.push(line);
        const match = /^Reins sim: (ws:\/\/127\.0\.0\.1:\d+)$/.exec(line);
        if (!match) return;
        clearTimeout(timer);
        resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`reins sim exited with ${code}; stderr:\n${stderr}`)));
    });

    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const response = new Promise<unknown>((resolve) => socket.once('message', (data) => resolve(JSON.parse(String(data)))));
    socket.send(JSON.stringify({ op: 'call_service', id: 'who', service: '/sim/identify', args: {} }));
    expect(await response).toMatchObject({ op: 'service_response', values: { identity }, result: true, id: 'who' });
    socket.close();

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stdoutLines).toEqual([`Reins sim: ${url}`]);
  });

  it('sets the task it is given: /sim/ground_truth says dock, and where to dock', async () => {
    const child = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', '--task', 'dock', '--camera', '32x24@5'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no address line within 15 s')), 15_000);
        createInterface({ input: child.stdout }).on('line', (line) => {
          const match = /^Reins sim: (ws:\/\/127\.0\.0\.1:\d+)$/.exec(line);
          if (!match) return;
          clearTimeout(timer);
          resolve(match[1]!);
        });
      });
      const socket = new WebSocket(url);
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const truth = new Promise<{ task: string; dock_pose: { x_m: number } }>((resolve) =>
        socket.on('message', (data) => {
          const op = JSON.parse(String(data)) as { op: string; topic?: string; msg?: { task: string; dock_pose: { x_m: number } } };
          if (op.op === 'publish' && op.topic === '/sim/ground_truth' && op.msg) resolve(op.msg);
        }),
      );
      socket.send(JSON.stringify({ op: 'subscribe', id: 'truth', topic: '/sim/ground_truth', type: 'reins_sim/GroundTruth' }));
      expect(await truth).toMatchObject({ task: 'dock', dock_pose: { x_m: expect.any(Number) } });
      socket.close();
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('refuses to bind beyond loopback without --insecure', async () => {
    const child = spawn(process.execPath, [REINS, 'sim', '--host', '0.0.0.0', '--rosbridge-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(2);
    expect(stderr).toContain('--insecure');
  });
});
