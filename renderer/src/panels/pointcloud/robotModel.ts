// The robot's model from its URDF, with urdf-loader (three.js). Its meshes are fetched from the robot
// through the core (robotMeshes.ts) after the model is built: the model is drawn at once with its simple
// shapes, each mesh joins it as it arrives, and `meshes` resolves with the notes on those that did not
// (each named with its reason, its link's collision shape drawn in its place). Where the robot's link
// cannot fetch files at all, one note says so for every mesh. A URDF that does not parse, or has no
// <robot>, is refused with the reason in words; the scene carries on without a model.
import { Color, Mesh, MeshBasicMaterial, Object3D, type Material } from 'three';
import URDFLoader, { type URDFRobot } from 'urdf-loader';
import { loadRobotMesh, type RobotFileAccess } from './robotMeshes.ts';
import { readRobotXml } from './robotXml.ts';

/** The meshes' outcome: how many were drawn, and the notes on those that were not. */
export interface RobotMeshesLoaded {
  drawn: number;
  notes: string[];
}

export type RobotModelResult =
  { ok: true; robot: URDFRobot; rootLink: string; notes: string[]; meshes: Promise<RobotMeshesLoaded> | undefined } | { ok: false; problem: string };

/** A mesh the URDF names: where it will hang, and the colour its <material> gives it. */
interface NamedMesh {
  uri: string;
  holder: Object3D;
  colour: Color;
  opacity: number;
}

/**
 * Parses URDF XML into a three.js object tree (x forward, y left, z up, as ROS). `files`: where the
 * robot's meshes are fetched from; without it they are left out with a note.
 */
export function parseRobotModel(urdf: string, source: string, files?: RobotFileAccess): RobotModelResult {
  const { document, problem } = readRobotXml(urdf, source);
  if (problem !== undefined) return { ok: false, problem };
  const named: NamedMesh[] = [];
  const loader = new URDFLoader();
  // Collision shapes are built, hidden: each stands in for a visual mesh that cannot be drawn.
  loader.parseCollision = true;
  loader.packages = (pkg: string) => `package://${pkg}`;
  // An empty holder now (urdf-loader places it under its <visual> or <collision>); the mesh fills it later.
  loader.loadMeshCb = (uri: string, _manager: unknown, material: unknown, done: (mesh: Object3D, error?: Error) => void) => {
    const lit = material as { color?: Color; opacity?: number } | null;
    const holder = new Object3D();
    holder.name = `mesh:${uri}`;
    named.push({ uri, holder, colour: lit?.color?.clone() ?? new Color(0xd8dde6), opacity: lit?.opacity ?? 1 });
    done(holder);
  };
  let robot: URDFRobot;
  try {
    robot = loader.parse(document);
  } catch (error) {
    return { ok: false, problem: `the robot model from ${source} could not be built (${error instanceof Error ? error.message : String(error)})` };
  }
  flatten(robot);
  robot.traverse((object) => {
    if ((object as { isURDFCollider?: boolean }).isURDFCollider) object.visible = false;
  });
  // A collision mesh is never fetched: it could only stand in for a visual mesh that did not come.
  const visuals = named.filter(({ holder }) => {
    if (holder.parent === null || !(holder.parent as { isURDFCollider?: boolean }).isURDFCollider) return true;
    holder.removeFromParent();
    return false;
  });
  if (visuals.length === 0) return { ok: true, robot, rootLink: robot.urdfName || robot.name, notes: [], meshes: undefined };
  if (files === undefined) {
    for (const mesh of visuals) showCollisionFor(mesh.holder);
    const notes = [leftOut(visuals.length, "the 3D view was given no way to fetch the robot's files")];
    return { ok: true, robot, rootLink: robot.urdfName || robot.name, notes, meshes: undefined };
  }
  return { ok: true, robot, rootLink: robot.urdfName || robot.name, notes: [], meshes: loadMeshes(visuals, files) };
}

async function loadMeshes(visuals: readonly NamedMesh[], files: RobotFileAccess): Promise<RobotMeshesLoaded> {
  const loads = await Promise.all(visuals.map((mesh) => loadRobotMesh(files, mesh.uri, mesh.colour, mesh.opacity)));
  const notes: string[] = [];
  let drawn = 0;
  let unsupported: { count: number; problem: string } | undefined;
  loads.forEach((load, index) => {
    const mesh = visuals[index]!;
    if (load.ok) {
      mesh.holder.add(load.object);
      drawn++;
      return;
    }
    const standIn = showCollisionFor(mesh.holder);
    if (load.unsupported) {
      unsupported = { count: (unsupported?.count ?? 0) + 1, problem: load.problem };
      return;
    }
    const link = linkAbove(mesh.holder);
    const linkName = link !== undefined ? `link ${link.name}` : 'its link';
    notes.push(
      `Mesh ${mesh.uri} not drawn: ${load.problem}; ${
        standIn ? `${linkName}'s collision shape is drawn in its place` : `${linkName} has no simple collision shape to draw in its place`
      }`,
    );
  });
  if (unsupported !== undefined) notes.unshift(leftOut(unsupported.count, unsupported.problem));
  return { drawn, notes };
}

function leftOut(count: number, why: string): string {
  return `${count} mesh${count === 1 ? '' : 'es'} of the robot model not drawn: ${why}; its simple shapes are shown`;
}

/** Shows the collision shapes (boxes, cylinders, spheres) of the mesh's link; whether it has any. */
function showCollisionFor(holder: Object3D): boolean {
  let shown = false;
  for (const child of linkAbove(holder)?.children ?? []) {
    if (!(child as { isURDFCollider?: boolean }).isURDFCollider) continue;
    if (!child.children.some((part) => part instanceof Mesh)) continue;
    child.visible = true;
    shown = true;
  }
  return shown;
}

function linkAbove(holder: Object3D): Object3D | undefined {
  for (let at: Object3D | null = holder.parent; at !== null; at = at.parent) if ((at as { isURDFLink?: boolean }).isURDFLink) return at;
  return undefined;
}

/**
 * The model's lit materials become flat ones of the same colour: no lighting shader to compile (a
 * software renderer compiles one for hundreds of milliseconds on the page's main thread, long enough to
 * miss the drive heartbeat) and a cheaper draw; the shapes' colours are what the operator reads.
 */
function flatten(robot: URDFRobot): void {
  robot.traverse((object) => {
    if (!(object instanceof Mesh)) return;
    const lit = object.material as Material & { color?: Color; opacity?: number; transparent?: boolean };
    object.material = new MeshBasicMaterial({ color: lit.color ?? new Color(0xd8dde6), transparent: lit.transparent ?? false, opacity: lit.opacity ?? 1 });
    lit.dispose();
  });
}
