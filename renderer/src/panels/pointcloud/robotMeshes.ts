// The meshes a robot model names, fetched from the robot through the core (`GET /api/robot-asset`:
// foxglove_bridge's assets) and read into three.js geometry: STL (binary or ASCII) and OBJ; any other
// format is refused in words. Runs where the 3D view runs (its worker, or the page), so it is handed
// the core's origin and the access token rather than reading the page's state.
import { BufferGeometry, Color, Mesh, MeshBasicMaterial, type Object3D } from 'three';
import { OBJLoader } from 'three/examples/jsm/loaders/OBJLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { Paths } from '../../lib/contract.ts';

/** Where the robot's files are asked for: the core that served the page, and the token its API takes. */
export interface RobotFileAccess {
  origin: string;
  token: string;
}

/**
 * A mesh drawn, or why not. `unsupported`: the robot's link cannot fetch files at all (rosbridge, a
 * serial robot, a replay), said once for every mesh rather than once each.
 */
export type RobotMeshLoad = { ok: true; object: Object3D; triangles: number } | { ok: false; problem: string; unsupported: boolean };

/** Fetches one mesh by its URI and builds it in `colour`, flat (no lighting shader: robotModel.ts). */
export async function loadRobotMesh(access: RobotFileAccess, uri: string, colour: Color, opacity: number): Promise<RobotMeshLoad> {
  const format = /\.([a-z0-9]+)$/i.exec(uri)?.[1]?.toLowerCase();
  if (format !== 'stl' && format !== 'obj')
    return { ok: false, problem: `its format (${format ? `.${format}` : 'no extension'}) is not drawn by the 3D view, only STL and OBJ`, unsupported: false };
  let response: Response;
  try {
    response = await fetch(`${access.origin}${Paths.robotAsset}?uri=${encodeURIComponent(uri)}`, {
      headers: { authorization: `Bearer ${access.token}` },
      cache: 'no-store',
    });
  } catch (error) {
    return { ok: false, problem: `the core could not be reached (${error instanceof Error ? error.message : String(error)})`, unsupported: false };
  }
  if (!response.ok) {
    const body: unknown = await response.json().catch(() => undefined);
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    return { ok: false, problem: typeof message === 'string' ? message : `the core answered ${response.status}`, unsupported: response.status === 501 };
  }
  const bytes = await response.arrayBuffer();
  const material = (): MeshBasicMaterial => new MeshBasicMaterial({ color: colour, transparent: opacity < 1, opacity });
  try {
    if (format === 'stl') {
      const geometry = new STLLoader().parse(bytes);
      const triangles = triangleCount(geometry);
      if (triangles === 0) {
        geometry.dispose();
        return { ok: false, problem: 'the file has no triangles (not an STL file?)', unsupported: false };
      }
      return { ok: true, object: new Mesh(geometry, material()), triangles };
    }
    const group = new OBJLoader().parse(new TextDecoder().decode(bytes));
    let triangles = 0;
    group.traverse((object) => {
      if (!(object instanceof Mesh)) return;
      const lit = object.material as MeshBasicMaterial | MeshBasicMaterial[];
      for (const one of Array.isArray(lit) ? lit : [lit]) one.dispose();
      object.material = material();
      triangles += triangleCount(object.geometry as BufferGeometry);
    });
    if (triangles === 0) return { ok: false, problem: 'the file has no faces (not an OBJ file?)', unsupported: false };
    return { ok: true, object: group, triangles };
  } catch (error) {
    return {
      ok: false,
      problem: `the file could not be read as ${format.toUpperCase()} (${error instanceof Error ? error.message : String(error)})`,
      unsupported: false,
    };
  }
}

function triangleCount(geometry: BufferGeometry): number {
  const positions = geometry.getAttribute('position');
  if (positions === undefined) return 0;
  return Math.floor((geometry.index?.count ?? positions.count) / 3);
}
