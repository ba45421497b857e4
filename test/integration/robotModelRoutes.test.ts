// Where the robot's model comes from when /robot_description brings nothing (a ROS 2 robot's
// transient-local topic a bridge does not replay): robot_state_publisher's robot_description
// parameter, through rosbridge ROS 2's rosapi (`/robot_state_publisher:robot_description`) and
// through foxglove_bridge's parameters (`/robot_state_publisher.robot_description`); and the robot's
// meshes through foxglove_bridge's assets. Over the real simulated robot, on real WebSockets.
import { afterEach, describe, expect, it } from 'vitest';
import { SceneSource } from '../../main/api/sceneSource.ts';
import type { Link } from '../../main/core/link.ts';
import { FoxgloveLink } from '../../main/links/foxglove/foxgloveLink.ts';
import { RosbridgeLink } from '../../main/links/rosbridge/rosbridgeLink.ts';
import { SwitchableLink } from '../../main/links/switchableLink.ts';
import { LIDAR_HOUSING_URI } from '../../main/sim/robotMeshes.ts';
import { robotModel } from '../../main/sim/robotModel.ts';
import { startSimRosbridgeServer, type SimRosbridgeServer } from '../../main/sim/rosbridge/server.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { startFoxgloveSim, type FoxgloveSim } from '../support/foxgloveSim.ts';
import { waitForPresence } from '../support/linkEvents.ts';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function smallRobot(): SimRobot {
  return new SimRobot({ arenaSeed: 2, episodeSeed: 4, camera: { widthPx: 32, heightPx: 24, rateHz: 5 }, scan: { beams: 90, rateHz: 5 } });
}

async function modelOf(link: Link): Promise<ReturnType<SceneSource['robotModel']>> {
  const source = new SceneSource(link, { clock: () => Date.now(), sensorFrames: () => ({}), rechoosePeriodMs: 50 });
  const release = source.acquire();
  closers.push(async () => release());
  const deadline = Date.now() + 8000;
  while (Date.now() < deadline) {
    const model = source.robotModel();
    if (model.urdf !== undefined) return model;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no model: ${source.robotModel().problem}`);
}

async function rosbridgeRobot(robotDescriptionTopic: boolean, rosVersion: 1 | 2 = 2): Promise<{ server: SimRosbridgeServer; link: RosbridgeLink }> {
  const robot = smallRobot();
  const server = await startSimRosbridgeServer({ robot, port: 0, rosVersion, robotDescriptionTopic });
  closers.push(() => server.close());
  const link = new RosbridgeLink({ url: server.url, simulated: true });
  closers.push(() => link.close());
  await waitForPresence(link, 'present');
  return { server, link };
}

async function foxgloveRobot(robotDescriptionTopic: boolean): Promise<{ sim: FoxgloveSim; link: FoxgloveLink }> {
  const sim = await startFoxgloveSim(smallRobot(), { robotDescriptionTopic });
  closers.push(() => sim.close());
  const link = new FoxgloveLink({ url: sim.foxglove.url, simulated: true });
  closers.push(() => link.close());
  await waitForPresence(link, 'present');
  return { sim, link };
}

const SIM_URDF = robotModel({ points: new SimRobot({ arenaSeed: 2, episodeSeed: 4 }).pointsOptions }).urdf;
/** The foxglove sim serves its files: its model names the LiDAR housing's mesh. */
const FOXGLOVE_SIM_URDF = robotModel({ points: new SimRobot({ arenaSeed: 2, episodeSeed: 4 }).pointsOptions, laserMeshUri: LIDAR_HOUSING_URI }).urdf;

describe('the robot model from robot_state_publisher’s parameter', () => {
  it('is read through rosbridge ROS 2’s rosapi when the robot offers no /robot_description', async () => {
    const { link } = await rosbridgeRobot(false);
    expect(link.topics().map((topic) => topic.topic)).not.toContain('/robot_description');
    expect(await link.readNodeParameter('/robot_state_publisher', 'robot_description')).toEqual({ ok: true, value: SIM_URDF });
    const missing = await link.readNodeParameter('/robot_state_publisher', 'publish_frequency');
    expect(missing).toEqual({
      ok: false,
      problem: 'the robot has no parameter /robot_state_publisher:publish_frequency (rosapi’s get_param)'.replace('’', "'"),
    });
    const model = await modelOf(new SwitchableLink(link));
    expect(model).toMatchObject({ source: 'parameter /robot_state_publisher robot_description', urdf: SIM_URDF, problem: undefined });
    expect(model.revision).toBeGreaterThan(0);
  }, 20_000);

  it('is read through ROS 1 rosapi as the global /robot_description, where ROS 1 keeps it', async () => {
    const { link } = await rosbridgeRobot(false, 1);
    await expect.poll(() => link.rosVersion(), { timeout: 5000 }).toBe(1);
    expect(await link.readNodeParameter('/robot_state_publisher', 'robot_description')).toEqual({ ok: true, value: SIM_URDF });
    expect(await link.readNodeParameter('/robot_state_publisher', 'publish_frequency')).toEqual({
      ok: false,
      problem: "the robot has no parameter /robot_state_publisher/publish_frequency or /publish_frequency (rosapi's get_param)",
    });
    const model = await modelOf(new SwitchableLink(link));
    expect(model).toMatchObject({ source: 'parameter /robot_state_publisher robot_description', urdf: SIM_URDF });
  }, 20_000);

  it('is read through foxglove_bridge’s parameters when the robot offers no /robot_description', async () => {
    const { link } = await foxgloveRobot(false);
    expect(link.topics().map((topic) => topic.topic)).not.toContain('/robot_description');
    expect(await link.readNodeParameter('/robot_state_publisher', 'robot_description')).toEqual({ ok: true, value: FOXGLOVE_SIM_URDF });
    expect(await link.readNodeParameter('/robot_state_publisher', 'publish_frequency')).toEqual({
      ok: false,
      problem: "the robot has no parameter /robot_state_publisher.publish_frequency (the foxglove server's getParameters)",
    });
    const model = await modelOf(new SwitchableLink(link));
    expect(model).toMatchObject({ source: 'parameter /robot_state_publisher robot_description', urdf: FOXGLOVE_SIM_URDF });
  }, 20_000);

  it('is not asked for while the topic brings the model', async () => {
    const { link } = await rosbridgeRobot(true);
    let asked = 0;
    const read = link.readNodeParameter.bind(link);
    link.readNodeParameter = (node, name) => {
      asked++;
      return read(node, name);
    };
    const model = await modelOf(link);
    expect(model.source).toBe('/robot_description');
    expect(asked).toBe(0);
  }, 20_000);
});

describe('the robot’s meshes through foxglove_bridge’s assets', () => {
  it('fetches the LiDAR housing as a binary STL, and names what cannot be fetched', async () => {
    const { link } = await foxgloveRobot(true);
    const housing = await link.fetchAsset(LIDAR_HOUSING_URI);
    if (!housing.ok) throw new Error(housing.problem);
    const triangles = new DataView(housing.bytes.buffer, housing.bytes.byteOffset).getUint32(80, true);
    expect(triangles).toBeGreaterThan(100);
    expect(housing.bytes.byteLength).toBe(84 + 50 * triangles);
    expect(await link.fetchAsset('package://reins_sim/meshes/missing.stl')).toEqual({
      ok: false,
      problem: 'the foxglove server could not send package://reins_sim/meshes/missing.stl: Failed to retrieve asset package://reins_sim/meshes/missing.stl',
      failure: 'refused',
    });
    expect(await link.fetchAsset('file:///etc/passwd')).toEqual({
      ok: false,
      problem: 'the foxglove server could not send file:///etc/passwd: Asset URI not allowed: file:///etc/passwd',
      failure: 'refused',
    });
  }, 20_000);

  it('says a rosbridge robot serves no files', async () => {
    const { link } = await rosbridgeRobot(true);
    expect(await new SwitchableLink(link).fetchAsset(LIDAR_HOUSING_URI)).toEqual({
      ok: false,
      problem: 'the robot’s files cannot be fetched over this link (only foxglove_bridge serves them)'.replace('’', "'"),
      failure: 'unsupported',
    });
  }, 20_000);
});
