// Plots of any field against the real simulated robot (its rosbridge server in process): a field of
// /odom rises while the robot is driven forward, read from the messages as rosbridge carried them and
// sent in plot frames; a path that names nothing says so in words while the other series keep
// plotting; and a topic no series reads any more is unsubscribed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBinaryFrame, type PlotStatusEvent } from '../../main/core/contract.ts';
import { twistFromDrive } from '../../main/core/messages.ts';
import { LivePlots } from '../../main/api/livePlots.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { waitFor, waitForPresence } from '../support/linkEvents.ts';

let server: SimRosbridgeServer;
let link: RosbridgeLink;
beforeAll(async () => {
  const robot = new SimRobot({ arenaSeed: 3, episodeSeed: 5, camera: { widthPx: 32, heightPx: 24, rateHz: 5 } });
  server = await startSimRosbridgeServer({ robot, port: 0 });
  link = new RosbridgeLink({ url: server.url, simulated: true });
  await waitForPresence(link, 'present');
  // rosapi's topic list arrives after the connection opens; the plots read the topics' types from it.
  await waitFor('the robot’s topics', (resolve) => {
    const timer = setInterval(() => link.topics().some((topic) => topic.topic === '/imu') && resolve(undefined), 20);
    return () => clearInterval(timer);
  });
});
afterAll(async () => {
  await link.close();
  await server.close();
});

interface Received {
  statuses: PlotStatusEvent[];
  values: Map<number, number[]>;
}

function plots(): { plots: LivePlots; got: Received } {
  const got: Received = { statuses: [], values: new Map() };
  const created = new LivePlots(link, {
    send: (bytes) => {
      const frame = decodeBinaryFrame(bytes);
      if (frame.kind !== 'plot') throw new Error(`a plot frame was expected, got ${frame.kind}`);
      for (const series of frame.series) got.values.set(series.index, [...(got.values.get(series.index) ?? []), ...series.values]);
      return true;
    },
    status: (event) => got.statuses.push(event),
  });
  return { plots: created, got };
}

function until(check: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  return waitFor(
    what,
    (resolve) => {
      const timer = setInterval(() => check() && resolve(undefined), 10);
      return () => clearInterval(timer);
    },
    timeoutMs,
  );
}

describe('live plots of any field on the simulated robot', () => {
  it('plots /odom.twist.twist.linear.x rising while the robot is driven forward', async () => {
    const { plots: live, got } = plots();
    try {
      const status = live.set(['/odom.twist.twist.linear.x', '/joint_states.velocity[1]']);
      expect(status.series).toEqual([{ path: '/odom.twist.twist.linear.x' }, { path: '/joint_states.velocity[1]' }]);
      await until(() => (got.values.get(0)?.length ?? 0) >= 5 && (got.values.get(1)?.length ?? 0) >= 5, 'the first values of both series');
      const restingMps = Math.max(...got.values.get(0)!.map(Math.abs));
      expect(restingMps).toBeLessThan(0.05);
      const forward = setInterval(() => link.publish('/cmd_vel', twistFromDrive({ linearMps: 0.4, angularRadps: 0 })), 100);
      try {
        await until(() => got.values.get(0)!.some((value) => value > 0.2), 'the plotted forward speed to rise above 0.2 m/s');
      } finally {
        clearInterval(forward);
      }
      // The wheels turn with the robot: the joint's velocity rose with it.
      expect(Math.max(...got.values.get(1)!.map(Math.abs))).toBeGreaterThan(0.5);
    } finally {
      live.close();
    }
  });

  it('says in words what a path that names nothing lacks, and keeps plotting the rest', async () => {
    const { plots: live, got } = plots();
    try {
      const status = live.set(['/odom.twist.twst.linear.x', '/imu.angular_velocity.z', '/nowhere.data', '/odom.pose.pose.position.x']);
      expect(status.series[0]!.problem).toBe(
        "/odom.twist (geometry_msgs/TwistWithCovariance) has no field 'twst' at /odom.twist.twst; its fields: twist, covariance",
      );
      expect(status.series[2]!.problem).toMatch(/^the robot does not offer \/nowhere \(yet\); it offers .*\/odom/);
      expect(status.series[1]!.problem).toBeUndefined();
      await until(() => (got.values.get(1)?.length ?? 0) >= 20 && (got.values.get(3)?.length ?? 0) >= 5, 'the good series to plot');
      expect(got.values.has(0)).toBe(false);
      expect(got.values.has(2)).toBe(false);
      expect(live.subscribedTopics().sort()).toEqual(['/imu', '/nowhere', '/odom']);
      live.set(['/imu.angular_velocity.z']);
      expect(live.subscribedTopics()).toEqual(['/imu']);
    } finally {
      live.close();
    }
  });
});
