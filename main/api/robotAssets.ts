// The robot's files for the 3D view (`GET /api/robot-asset?uri=…`): a mesh its URDF names, fetched
// through the connected link (foxglove_bridge's assets). The URI is checked here (a `package://` or
// `file://` URI, no `..`, bounded length); the robot's own allow-list decides the rest. The answer
// carries a content type from the file's extension and is capped in size; each failure has its
// status and its reason in words.
import type { ErrorBody } from '../core/contract.ts';
import type { Link, RobotAssetFailure } from '../core/link.ts';

/** The most a robot's file may be: robot meshes are kB to a few MB, and the 3D view holds every one it draws. */
export const MAX_ROBOT_ASSET_BYTES = 16 * 1024 * 1024;
const MAX_URI_CHARS = 1024;

export type RobotAssetResult = { ok: true; contentType: string; bytes: Uint8Array } | { ok: false; status: number; error: ErrorBody };

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  stl: 'model/stl',
  dae: 'model/vnd.collada+xml',
  obj: 'model/obj',
  mtl: 'model/mtl',
  glb: 'model/gltf-binary',
  gltf: 'model/gltf+json',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
};

/** The HTTP status each way a fetch can fail answers with. */
const FAILURE_STATUS: Readonly<Record<RobotAssetFailure, { status: number; code: ErrorBody['code'] }>> = {
  unsupported: { status: 501, code: 'unavailable' },
  'not-connected': { status: 503, code: 'unavailable' },
  refused: { status: 404, code: 'not-found' },
  'too-large': { status: 502, code: 'too-large' },
  timeout: { status: 504, code: 'unavailable' },
};

/** What is wrong with a URI the UI asks for, in words, or undefined. */
export function robotAssetUriProblem(uri: string | null): string | undefined {
  if (uri === null || uri === '') return 'name the file: ?uri=package://PACKAGE/PATH';
  if (uri.length > MAX_URI_CHARS) return `the URI is ${uri.length} characters long, over the ${MAX_URI_CHARS} a robot file's URI may be`;
  if (/[\u0000-\u001f\u007f]/.test(uri)) return 'the URI has control characters in it';
  const match = /^(package|file):\/\/(.+)$/.exec(uri);
  if (match === null) return `${uri} is not a package:// or file:// URI: the robot serves its files by those only`;
  if (match[2]!.split('/').includes('..')) return `${uri} climbs out of its folder (".."): refused`;
  if (match[1] === 'package' && !/^[^/]+\/.+/.test(match[2]!)) return `${uri} names no file in its package: use package://PACKAGE/PATH`;
  return undefined;
}

export function robotAssetContentType(uri: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(uri)?.[1]?.toLowerCase();
  return (extension !== undefined ? CONTENT_TYPES[extension] : undefined) ?? 'application/octet-stream';
}

/** One of the robot's files through the link, or why not with its HTTP status. */
export async function fetchRobotAsset(link: Link, uri: string | null): Promise<RobotAssetResult> {
  const problem = robotAssetUriProblem(uri);
  if (problem !== undefined || uri === null) return { ok: false, status: 400, error: { code: 'bad-request', message: problem ?? 'no URI' } };
  if (link.fetchAsset === undefined)
    return failed('unsupported', `${uri} cannot be fetched: ${link.robotName}'s link cannot fetch the robot's files (only foxglove_bridge serves them)`);
  const fetched = await link.fetchAsset(uri);
  if (!fetched.ok) return failed(fetched.failure, fetched.problem);
  if (fetched.bytes.byteLength > MAX_ROBOT_ASSET_BYTES)
    return failed(
      'too-large',
      `${uri} is ${(fetched.bytes.byteLength / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_ROBOT_ASSET_BYTES / 1024 / 1024} MiB a robot file may be`,
    );
  return { ok: true, contentType: robotAssetContentType(uri), bytes: fetched.bytes };
}

function failed(failure: RobotAssetFailure, message: string): RobotAssetResult {
  const { status, code } = FAILURE_STATUS[failure];
  return { ok: false, status, error: { code, message } };
}
