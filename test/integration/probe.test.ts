// `reins probe` as a user runs it: against the built-in simulated robot, and against nothing.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
const run = promisify(execFile);

describe('reins probe', () => {
  it('reports every sensor topic of the simulated robot with its rate', async () => {
    const { stdout } = await run(process.execPath, [REINS, 'probe', 'sim', '--seconds', '1.5', '--json'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
    });
    const report = JSON.parse(stdout) as { robot: string; connected: boolean; topics: Array<{ name: string; type: string; hz: number; bytesPerSec: number }> };
    expect(report.robot).toBe('sim');
    expect(report.connected).toBe(true);
    const byName = new Map(report.topics.map((t) => [t.name, t]));
    expect(byName.get('/camera/image_raw')).toMatchObject({ type: 'sensor_msgs/Image' });
    expect(byName.get('/camera/image_raw')!.hz).toBeGreaterThan(10);
    expect(byName.get('/camera/image_raw')!.bytesPerSec).toBeGreaterThan(160 * 120 * 3 * 10);
    expect(byName.get('/scan')!.hz).toBeGreaterThan(6);
    expect(byName.get('/imu')!.hz).toBeGreaterThan(60);
    expect([...byName.keys()]).not.toContain('/sim/ground_truth');
  }, 30_000);

  it("shows the command topic's type and the robot's clock offset: a TwistStamped robot 10 s ahead", async () => {
    const sim = spawn(process.execPath, [REINS, 'sim', '--rosbridge-port', '0', '--command-type', 'twist-stamped', '--clock-ahead-s', '10'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      let printed = '';
      sim.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
      while (!/Reins sim: (ws:\S+)/.test(printed))
        await Promise.race([once(sim.stdout, 'data'), once(sim, 'exit').then(() => Promise.reject(new Error('reins sim exited')))]);
      const url = /Reins sim: (ws:\S+)/.exec(printed)![1]!;
      const env = { ...process.env, REINS_LOG_LEVEL: 'silent' };
      const { stdout } = await run(process.execPath, [REINS, 'probe', url, '--seconds', '0.5', '--json'], { env });
      const report = JSON.parse(stdout) as { command?: { topic: string; type: string }; clockOffset?: { offsetMs: number; source: string } };
      expect(report.command).toEqual({ topic: '/cmd_vel', type: 'geometry_msgs/TwistStamped' });
      expect(report.clockOffset?.source).toBe('round-trip');
      expect(Math.abs(report.clockOffset!.offsetMs - 10_000)).toBeLessThan(100);
    } finally {
      sim.kill('SIGTERM');
    }
  }, 30_000);

  it('says "not connected" and exits 1 when nothing answers', async () => {
    const failure = await run(process.execPath, [REINS, 'probe', 'ws://127.0.0.1:1', '--seconds', '1', '--json'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(JSON.parse(failure!.stdout)).toEqual({ robot: 'ws://127.0.0.1:1', connected: false, topics: [] });
  }, 30_000);

  it('refuses a malformed robot address with a usage error', async () => {
    const failure = await run(process.execPath, [REINS, 'probe', 'tcp://robot']).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/--robot tcp:\/\/robot/);
  });
});
