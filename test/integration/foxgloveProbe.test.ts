// `reins probe foxglove://…` as a user runs it, against `reins sim --foxglove-port 0` (the simulated
// robot served as foxglove_bridge 3.x serves a ROS 2 robot, its /cmd_vel taking TwistStamped).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { killSimChild, startSimChild } from '../support/simChildProcess.ts';

const REINS = fileURLToPath(new URL('../../main/cli/reins.mjs', import.meta.url));
const run = promisify(execFile);

interface TopicRow {
  name: string;
  type: string;
  hz: number;
  bytesPerSec: number;
  latencyMsP50?: number;
}

describe('reins probe foxglove://', () => {
  it('lists every channel with its ROS 2 type, rate, bytes per second and latency, and the command type', async () => {
    const sim = await startSimChild(0, ['--foxglove-port', '0', '--command-type', 'twist-stamped', '--camera', '160x120@15']);
    try {
      const port = new URL(sim.foxgloveUrl!).port;
      const robot = `foxglove://127.0.0.1:${port}`;
      const { stdout } = await run(process.execPath, [REINS, 'probe', robot, '--seconds', '1.5', '--json'], {
        env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
      });
      const report = JSON.parse(stdout) as { robot: string; connected: boolean; topics: TopicRow[]; command?: { topic: string; type: string } };
      expect(report).toMatchObject({ robot, connected: true, command: { topic: '/cmd_vel', type: 'geometry_msgs/msg/TwistStamped' } });
      const byName = new Map(report.topics.map((topic) => [topic.name, topic]));
      expect(byName.get('/camera/image_raw')).toMatchObject({ type: 'sensor_msgs/msg/Image' });
      expect(byName.get('/camera/image_raw')!.hz).toBeGreaterThan(10);
      expect(byName.get('/camera/image_raw')!.bytesPerSec).toBeGreaterThan(160 * 120 * 3 * 10);
      expect(byName.get('/scan')).toMatchObject({ type: 'sensor_msgs/msg/LaserScan' });
      expect(byName.get('/imu')!.hz).toBeGreaterThan(60);
      for (const topic of ['/odom', '/imu', '/scan', '/joint_states']) {
        expect(byName.get(topic)!.latencyMsP50).toBeGreaterThanOrEqual(0);
        expect(byName.get(topic)!.latencyMsP50).toBeLessThan(1000);
      }
    } finally {
      await killSimChild(sim, 'SIGTERM');
    }
  }, 60_000);

  it('says "not connected" and exits 1 when nothing answers', async () => {
    const failure = await run(process.execPath, [REINS, 'probe', 'foxglove://127.0.0.1:1', '--seconds', '1', '--json'], {
      env: { ...process.env, REINS_LOG_LEVEL: 'silent' },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(JSON.parse(failure!.stdout)).toEqual({ robot: 'foxglove://127.0.0.1:1', connected: false, topics: [] });
  }, 60_000);
});
