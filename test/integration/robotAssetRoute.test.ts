// The robot's files for the 3D view through the real core's API (`GET /api/robot-asset?uri=…`): on
// the in-process sim, whose link serves no files, a 501 that says so; after connect-robot to the
// simulated robot served over the foxglove protocol (foxglove_bridge's assets, real WebSockets), the
// LiDAR housing's STL with its content type, and a file the robot lacks, a URI the core refuses and a
// request without the token each answered in words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paths, StatusResponse } from '../../main/core/contract.ts';
import { LIDAR_HOUSING_URI, lidarHousingStl } from '../../main/sim/robotMeshes.ts';
import { LASER_HEIGHT_M, LASER_RADIUS_M } from '../../main/sim/robotModel.ts';
import { SimRobot } from '../../main/sim/simRobot.ts';
import { startFoxgloveSim, type FoxgloveSim } from '../support/foxgloveSim.ts';
import { startCore, type RunningCore } from '../support/runningCore.ts';

let core: RunningCore;
let sim: FoxgloveSim | undefined;

beforeAll(async () => {
  core = await startCore();
});

afterAll(async () => {
  await core.close();
  await sim?.close();
});

const auth = () => ({ authorization: `Bearer ${core.token}` });
const assetUrl = (uri: string) => `${core.baseUrl}${Paths.robotAsset}?uri=${encodeURIComponent(uri)}`;

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('the robot’s files over the API', () => {
  it('says the in-process sim’s link serves no files, and refuses a request without the token', async () => {
    expect(await errorOf(await fetch(assetUrl(LIDAR_HOUSING_URI), { headers: auth() }))).toEqual({
      status: 501,
      code: 'unavailable',
      message: "the robot's files cannot be fetched over this link (only foxglove_bridge serves them)",
    });
    expect((await fetch(assetUrl(LIDAR_HOUSING_URI))).status).toBe(401);
  });

  it('refuses URIs that name no robot file, each in words', async () => {
    const cases: Array<[string, RegExp]> = [
      [`${core.baseUrl}${Paths.robotAsset}`, /name the file: \?uri=package:\/\/PACKAGE\/PATH/],
      [assetUrl('https://example.com/mesh.stl'), /not a package:\/\/ or file:\/\/ URI/],
      [assetUrl('package://reins_sim/../../etc/passwd'), /climbs out of its folder/],
      [assetUrl('package://reins_sim'), /names no file in its package/],
      [assetUrl(`package://reins_sim/${'a'.repeat(1100)}.stl`), /over the 1024 a robot file's URI may be/],
    ];
    for (const [url, message] of cases) {
      const error = await errorOf(await fetch(url, { headers: auth() }));
      expect(error, url).toMatchObject({ status: 400, code: 'bad-request' });
      expect(error.message, url).toMatch(message);
    }
    const posted = await fetch(assetUrl(LIDAR_HOUSING_URI), { method: 'POST', headers: auth() });
    expect(posted.status).toBe(405);
  });

  it('serves the foxglove robot’s LiDAR housing as STL, and says which file the robot lacks', async () => {
    sim = await startFoxgloveSim(new SimRobot({ arenaSeed: 2, episodeSeed: 4, camera: { widthPx: 32, heightPx: 24, rateHz: 5 } }));
    const robot = `foxglove://127.0.0.1:${new URL(sim.foxglove.url).port}`;
    const asked = await fetch(`${core.baseUrl}${Paths.requests}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...auth() },
      body: JSON.stringify({ type: 'connect-robot', robot }),
    });
    expect(asked.status).toBe(200);
    await expect
      .poll(async () => StatusResponse.parse(await (await fetch(`${core.baseUrl}${Paths.status}`, { headers: auth() })).json()).state.connection?.status, {
        timeout: 15_000,
      })
      .toBe('connected');

    const housing = await fetch(assetUrl(LIDAR_HOUSING_URI), { headers: auth() });
    expect(housing.status).toBe(200);
    expect(housing.headers.get('content-type')).toBe('model/stl');
    expect(new Uint8Array(await housing.arrayBuffer())).toEqual(lidarHousingStl(LASER_RADIUS_M, LASER_HEIGHT_M));

    expect(await errorOf(await fetch(assetUrl('package://reins_sim/meshes/missing.stl'), { headers: auth() }))).toEqual({
      status: 404,
      code: 'not-found',
      message: 'the foxglove server could not send package://reins_sim/meshes/missing.stl: Failed to retrieve asset package://reins_sim/meshes/missing.stl',
    });
    expect(await errorOf(await fetch(assetUrl('file:///etc/passwd'), { headers: auth() }))).toMatchObject({
      status: 404,
      message: 'the foxglove server could not send file:///etc/passwd: Asset URI not allowed: file:///etc/passwd',
    });
  }, 30_000);
});
