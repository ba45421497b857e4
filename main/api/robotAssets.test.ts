import { describe, expect, it } from 'vitest';
import { ScriptedLink } from '../../test/fakes/scriptedLink.ts';
import type { Link, RobotAssetFetch } from '../core/link.ts';
import { fetchRobotAsset, MAX_ROBOT_ASSET_BYTES, robotAssetContentType } from './robotAssets.ts';

/** A robot (played by hand) whose link serves every file with `answer`, and keeps the URIs asked for. */
function linkServing(answer: RobotAssetFetch): Link & { asked: string[] } {
  const asked: string[] = [];
  return Object.assign(new ScriptedLink('served'), {
    asked,
    fetchAsset: (uri: string) => {
      asked.push(uri);
      return Promise.resolve(answer);
    },
  });
}

describe('fetchRobotAsset', () => {
  it('answers a mesh with its bytes and a content type from its extension', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const link = linkServing({ ok: true, bytes });
    expect(await fetchRobotAsset(link, 'package://arm/meshes/Base.STL')).toEqual({ ok: true, contentType: 'model/stl', bytes });
    expect(link.asked).toEqual(['package://arm/meshes/Base.STL']);
    expect(robotAssetContentType('package://arm/meshes/base.dae')).toBe('model/vnd.collada+xml');
    expect(robotAssetContentType('package://arm/meshes/base.ply')).toBe('application/octet-stream');
  });

  it('refuses a file over the cap, naming its size', async () => {
    const link = linkServing({ ok: true, bytes: new Uint8Array(MAX_ROBOT_ASSET_BYTES + 1) });
    expect(await fetchRobotAsset(link, 'package://arm/meshes/huge.stl')).toEqual({
      ok: false,
      status: 502,
      error: { code: 'too-large', message: 'package://arm/meshes/huge.stl is 16.0 MiB, over the 16 MiB a robot file may be' },
    });
  });

  it('maps each way a fetch fails to its status, and says a link with no way to fetch cannot', async () => {
    const cases: Array<[RobotAssetFetch & { ok: false }, number]> = [
      [{ ok: false, problem: 'not connected', failure: 'not-connected' }, 503],
      [{ ok: false, problem: 'no such file', failure: 'refused' }, 404],
      [{ ok: false, problem: 'no answer', failure: 'timeout' }, 504],
      [{ ok: false, problem: 'no assets', failure: 'unsupported' }, 501],
    ];
    for (const [answer, status] of cases)
      expect(await fetchRobotAsset(linkServing(answer), 'package://arm/a.stl')).toMatchObject({ ok: false, status, error: { message: answer.problem } });
    expect(await fetchRobotAsset(new ScriptedLink('serial bot'), 'package://arm/a.stl')).toEqual({
      ok: false,
      status: 501,
      error: {
        code: 'unavailable',
        message: "package://arm/a.stl cannot be fetched: serial bot's link cannot fetch the robot's files (only foxglove_bridge serves them)",
      },
    });
  });

  it('refuses a URI it never asks the robot for', async () => {
    const link = linkServing({ ok: true, bytes: new Uint8Array(1) });
    for (const uri of [null, '', 'meshes/base.stl', 'package://arm/../secret.stl', 'file:///a/\u0001b.stl'])
      expect(await fetchRobotAsset(link, uri), String(uri)).toMatchObject({ ok: false, status: 400, error: { code: 'bad-request' } });
    expect(link.asked).toEqual([]);
  });
});
