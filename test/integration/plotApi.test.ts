// Plots of any field through the API of the real core (the simulated robot in process, which carries
// no ROS messages: its fields are read in the shape the recorder writes): the fields offered for
// suggestions, set-plots over the socket answered with a status and plot frames, a path that names
// nothing answered in words, set-plots refused over HTTP, and review's plot refused outside review.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paths, PlotFieldsResponse, type Event, type PlotSamplesFrame } from '../../main/core/contract.ts';
import { startCore, type RunningCore } from '../support/runningCore.ts';
import { SocketClient } from '../support/socketClient.ts';

let core: RunningCore;

beforeAll(async () => {
  core = await startCore();
});

afterAll(async () => {
  await core.close();
});

const auth = () => ({ authorization: `Bearer ${core.token}` });
const isPlotStatus = (event: Event): event is Extract<Event, { type: 'plot-status' }> => event.type === 'plot-status';

describe('plots of any field over the API', () => {
  it('offers the numeric fields of the robot’s topics', async () => {
    const response = await fetch(`${core.baseUrl}${Paths.plotFields}`, { headers: auth() });
    expect(response.status).toBe(200);
    const fields = PlotFieldsResponse.parse(await response.json());
    const odom = fields.topics.find((topic) => topic.topic === '/odom');
    expect(odom?.type).toBe('nav_msgs/Odometry');
    expect(odom?.fields).toContain('/odom.twist.twist.linear.x');
    expect(fields.topics.find((topic) => topic.topic === '/joint_states')?.fields).toContain('/joint_states.velocity[0]');
  });

  it('streams the series a socket asks for, each problem said in words, until it asks for none', async () => {
    const socket = await SocketClient.open(core.socketUrl(), core.origin);
    try {
      socket.send({ type: 'set-plots', id: 'p1', paths: ['/imu.angular_velocity.z', '/odom.twist.twist.linear.q', '/joint_states.position[0]'] });
      const status = await socket.next(isPlotStatus);
      expect(status.series[0]).toEqual({ path: '/imu.angular_velocity.z' });
      expect(status.series[1]!.problem).toBe(
        "/odom.twist.twist.linear (geometry_msgs/Vector3) has no field 'q' at /odom.twist.twist.linear.q; its fields: x, y, z",
      );
      await socket.next((event) => event.type === 'ack' && event.id === 'p1');
      const counts = () => {
        const perSeries = new Map<number, number>();
        for (const frame of socket.frames.filter((candidate): candidate is PlotSamplesFrame => candidate.kind === 'plot'))
          for (const series of frame.series) perSeries.set(series.index, (perSeries.get(series.index) ?? 0) + series.values.length);
        return perSeries;
      };
      await expect.poll(() => (counts().get(0) ?? 0) >= 50 && (counts().get(2) ?? 0) >= 20, { timeout: 10_000 }).toBe(true);
      expect(counts().has(1)).toBe(false);

      socket.send({ type: 'set-plots', paths: [] });
      const cleared = await socket.next((event) => isPlotStatus(event) && event.generation === 2);
      expect(cleared).toMatchObject({ series: [] });
    } finally {
      socket.socket.close();
    }
  });

  it('refuses a path that does not parse, naming it, and set-plots over HTTP', async () => {
    const socket = await SocketClient.open(core.socketUrl(), core.origin);
    try {
      socket.send({ type: 'set-plots', paths: ['odom.twist'] });
      const error = await socket.next((event) => event.type === 'error');
      expect(error).toMatchObject({ error: { code: 'bad-request', message: expect.stringContaining('paths.0: a field path starts with its topic') } });
    } finally {
      socket.socket.close();
    }
    const response = await fetch(`${core.baseUrl}${Paths.requests}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify({ type: 'set-plots', paths: ['/odom.twist.twist.linear.x'] }),
    });
    expect(response.status).toBe(409);
    expect((await response.json()).error.message).toMatch(/stream over the UI socket/);
    const review = await fetch(`${core.baseUrl}${Paths.reviewPlot}?path=${encodeURIComponent('/odom.twist.twist.linear.x')}`, { headers: auth() });
    expect(review.status).toBe(404);
  });
});
