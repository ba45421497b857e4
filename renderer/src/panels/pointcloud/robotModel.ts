// The robot's model from its URDF, with urdf-loader (three.js). Meshes are not fetched: the cockpit has
// no route to the robot's package files, so a model that names meshes is drawn with its simple shapes
// and a note says how many meshes were left out. A URDF that does not parse, or has no <robot>, is
// refused with the reason in words; the scene carries on without a model.
import { Color, Mesh, MeshBasicMaterial, type Material, type Object3D } from 'three';
import URDFLoader, { type URDFRobot } from 'urdf-loader';

export type RobotModelResult = { ok: true; robot: URDFRobot; rootLink: string; notes: string[] } | { ok: false; problem: string };

/** Parses URDF XML into a three.js object tree (x forward, y left, z up, as ROS). */
export function parseRobotModel(urdf: string, source: string): RobotModelResult {
  const document = new DOMParser().parseFromString(urdf, 'text/xml');
  const parseError = document.getElementsByTagName('parsererror')[0];
  if (parseError !== undefined) {
    const detail = (parseError.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 160);
    return { ok: false, problem: `the robot model from ${source} is not valid XML (${detail || 'no detail'})` };
  }
  const robotNode = document.documentElement;
  if (robotNode.nodeName !== 'robot')
    return { ok: false, problem: `the robot model from ${source} has no <robot> element (it starts with <${robotNode.nodeName}>)` };
  if (robotNode.getElementsByTagName('link').length === 0) return { ok: false, problem: `the robot model from ${source} has no <link>` };
  const notes: string[] = [];
  let meshes = 0;
  const loader = new URDFLoader();
  loader.parseCollision = false;
  // Every package:// path resolves (to its own text); the mesh itself is never fetched, only counted.
  loader.packages = (pkg: string) => `package://${pkg}`;
  loader.loadMeshCb = (_url: string, _manager: unknown, _material: unknown, done: (mesh: Object3D, error?: Error) => void) => {
    meshes++;
    done(undefined as unknown as Object3D, new Error('meshes are not fetched from the robot'));
  };
  let robot: URDFRobot;
  const consoleError = console.error;
  try {
    // urdf-loader logs each mesh it could not load; the note below says it once.
    console.error = () => {};
    robot = loader.parse(document);
  } catch (error) {
    return { ok: false, problem: `the robot model from ${source} could not be built (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    console.error = consoleError;
  }
  flatten(robot);
  if (meshes > 0)
    notes.push(
      `${meshes} mesh${meshes === 1 ? '' : 'es'} of the robot model not drawn: the cockpit cannot fetch the robot's package files; its simple shapes are shown`,
    );
  return { ok: true, robot, rootLink: robot.urdfName || robot.name, notes };
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
