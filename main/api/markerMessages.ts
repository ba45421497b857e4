// nav_msgs/Path and visualization_msgs/Marker(Array) as a link delivers them (RosFields: JSON or CBOR
// shapes, ROS 1 or ROS 2 durations), read and checked into what the 3D view draws. Nothing throws: a
// marker that cannot be drawn (a NaN in its pose or scale, a rotation that is not a quaternion, a
// type the view does not know, too many points) is left out with a problem in words naming it by
// topic, namespace and id; the message's other markers are kept. A path whose poses hold a NaN is
// refused whole (a route with a hole is not the robot's route); a long one is thinned.
import type { SceneShape, SceneShapeKind } from '../core/contract.ts';
import type { Quaternion } from '../core/messages.ts';
import { unitQuaternion } from '../core/util/rigidTransform.ts';
import { canonicalTypeName } from '../links/rosbridge/decode/messageTypes.ts';
import { describeWireValue, isWireRecord, WireFieldError, WireObject } from '../links/rosbridge/decode/wireFields.ts';

/** The most points one marker may carry; one with more is refused (rviz draws them, slowly; the cockpit says so). */
export const MAX_MARKER_POINTS = 10_000;
/** The most poses of a path drawn: a longer one is thinned evenly, its last pose kept. */
export const MAX_PATH_POSES = 2000;
/** A path is drawn in this colour (nav_msgs/Path has none): a green apart from the scan's and the predicted path's. */
export const PATH_COLOUR: SceneShape['colour'] = [0.3, 0.85, 0.45, 1];

/** visualization_msgs/Marker's type numbers. */
const MARKER_KINDS: ReadonlyMap<number, SceneShapeKind> = new Map([
  [0, 'arrow'],
  [1, 'cube'],
  [2, 'sphere'],
  [3, 'cylinder'],
  [4, 'line-strip'],
  [5, 'line-list'],
  [6, 'cube-list'],
  [7, 'sphere-list'],
  [8, 'points'],
  [9, 'text'],
  [11, 'triangle-list'],
]);
const MESH_RESOURCE = 10;
const ADD = 0;
const DELETE = 2;
const DELETE_ALL = 3;
/** Kinds whose points are the shape; the others are placed by their pose alone (an arrow may have two). */
const POINT_KINDS: ReadonlySet<SceneShapeKind> = new Set(['line-strip', 'line-list', 'cube-list', 'sphere-list', 'points', 'triangle-list']);

/** What a Marker asks of the scene. `key` is its identity: topic, namespace and id. */
export type MarkerCommand =
  | {
      action: 'add';
      key: string;
      /** For the operator: `marker goal/0 on /markers`. */
      name: string;
      frame: string;
      frameLocked: boolean;
      /** 0: for ever. */
      lifetimeMs: number;
      shape: Omit<SceneShape, 'key' | 'version' | 'frame'>;
    }
  | { action: 'delete'; key: string }
  /** Every marker of the topic goes (rviz's DELETEALL; its namespace, where given, is not consulted). */
  | { action: 'delete-all' };

export interface MarkerProblem {
  /** The marker's key, or the topic's for a problem with the message itself. */
  key: string;
  problem: string;
}

export interface ReadMarkers {
  commands: MarkerCommand[];
  problems: MarkerProblem[];
}

export type ReadPath =
  | { ok: true; frame: string; pointsM: number[]; poses: number }
  /** `key` is the topic: a later good path replaces the problem. */
  | { ok: false; problem: string };

export function isPathType(rosType: string | undefined): boolean {
  return rosType !== undefined && canonicalTypeName(rosType) === 'nav_msgs/Path';
}

export function isMarkerArrayType(rosType: string | undefined): boolean {
  return rosType !== undefined && canonicalTypeName(rosType) === 'visualization_msgs/MarkerArray';
}

export function isMarkerType(rosType: string | undefined): boolean {
  return rosType !== undefined && canonicalTypeName(rosType) === 'visualization_msgs/Marker';
}

/** The key of a marker: what ADD, MODIFY and DELETE name it by. */
export function markerKey(topic: string, ns: string, id: number): string {
  return `${topic} ${ns}/${id}`;
}

/** A nav_msgs/Path's positions in its header's frame (rviz's rule: the poses' own frame ids are not consulted). */
export function readPath(fields: unknown, topic: string): ReadPath {
  let message: WireObject;
  let frame: string;
  let poses: WireObject[];
  try {
    message = WireObject.root(fields, topic);
    frame = message.object('header').string('frame_id');
    poses = message.objects('poses');
  } catch (error) {
    return { ok: false, problem: `the path on ${topic} could not be read: ${(error as Error).message}` };
  }
  const stride = Math.ceil(poses.length / MAX_PATH_POSES);
  const pointsM: number[] = [];
  for (let index = 0; index < poses.length; index++) {
    // Thinned evenly; the last pose (the goal) is always kept.
    if (index % stride !== 0 && index !== poses.length - 1) continue;
    try {
      const position = poses[index]!.object('pose').object('position');
      pointsM.push(position.finite('x'), position.finite('y'), position.finite('z'));
    } catch (error) {
      return { ok: false, problem: `the path on ${topic} is not drawn: ${(error as Error).message}` };
    }
  }
  if (frame === '' && poses.length > 0) return { ok: false, problem: `the path on ${topic} names no frame (header.frame_id is empty): it is not drawn` };
  return { ok: true, frame, pointsM: pointsM.map(roundMm), poses: poses.length };
}

/** A visualization_msgs/MarkerArray (`markers`), or with `single` one Marker; in order, as rviz applies them. */
export function readMarkers(fields: unknown, topic: string, single = false): ReadMarkers {
  const items = single ? [fields] : isWireRecord(fields) ? fields['markers'] : undefined;
  if (!Array.isArray(items)) {
    const got = items === undefined ? 'no markers list' : `markers as ${describeWireValue(items)}`;
    return { commands: [], problems: [{ key: topic, problem: `a message on ${topic} is not a MarkerArray: it has ${got}` }] };
  }
  const commands: MarkerCommand[] = [];
  const problems: MarkerProblem[] = [];
  items.forEach((item: unknown, index) => {
    const path = single ? topic : `${topic}.markers[${index}]`;
    const read = readMarker(item, topic, path);
    if ('problem' in read) problems.push(read);
    else commands.push(read);
  });
  return { commands, problems };
}

function readMarker(item: unknown, topic: string, path: string): MarkerCommand | MarkerProblem {
  let ns: string;
  let id: number;
  let action: number;
  try {
    const marker = WireObject.root(item, path);
    ns = marker.string('ns');
    id = integer(marker, 'id');
    action = integer(marker, 'action');
  } catch (error) {
    return { key: `${path}`, problem: `a marker on ${topic} could not be read: ${(error as Error).message}` };
  }
  const key = markerKey(topic, ns, id);
  const name = `marker ${ns}/${id} on ${topic}`;
  if (action === DELETE_ALL) return { action: 'delete-all' };
  if (action === DELETE) return { action: 'delete', key };
  if (action !== ADD && action !== 1)
    return { key, problem: `the ${name} has action ${action}, which is none of ADD/MODIFY (0), DELETE (2), DELETEALL (3): ignored` };
  try {
    return readAddedMarker(WireObject.root(item, path), key, name);
  } catch (error) {
    const problem = error instanceof WireFieldError ? `${error.path.slice(path.length + 1) || error.path}: ${error.problem}` : (error as Error).message;
    return { key, problem: `the ${name} is not drawn: ${problem}` };
  }
}

/** An ADD or MODIFY; throws an Error saying what is wrong with it. */
function readAddedMarker(marker: WireObject, key: string, name: string): MarkerCommand {
  const typeNumber = integer(marker, 'type');
  if (typeNumber === MESH_RESOURCE) throw new Error('it is a MESH_RESOURCE marker, and the cockpit cannot fetch the robot’s mesh files');
  const kind = MARKER_KINDS.get(typeNumber);
  if (kind === undefined) throw new Error(`its type ${typeNumber} is not a Marker type (0–11)`);
  const frame = marker.object('header').string('frame_id');
  if (frame === '') throw new Error('it names no frame (header.frame_id is empty)');
  const pose = marker.object('pose');
  const position = pose.object('position');
  const orientation = pose.object('orientation');
  const t: [number, number, number] = [position.finite('x'), position.finite('y'), position.finite('z')];
  const q = markerRotation({ x: orientation.finite('x'), y: orientation.finite('y'), z: orientation.finite('z'), w: orientation.finite('w') });
  const scaleFields = marker.object('scale');
  const scale: [number, number, number] = [scaleFields.finite('x'), scaleFields.finite('y'), scaleFields.finite('z')];
  const colour = rgba(marker.object('color'));

  const points = marker.has('points') ? marker.objects('points') : [];
  if (points.length > MAX_MARKER_POINTS) throw new Error(`it has ${points.length} points, over the ${MAX_MARKER_POINTS} a marker may have`);
  const usesPoints = POINT_KINDS.has(kind) || (kind === 'arrow' && points.length > 0);
  if (kind === 'arrow' && points.length > 0 && points.length !== 2) throw new Error(`an arrow given by points needs 2 (start, end), it has ${points.length}`);
  if (kind === 'line-list' && points.length % 2 !== 0) throw new Error(`a LINE_LIST needs its points in pairs, it has ${points.length}`);
  if (kind === 'triangle-list' && points.length % 3 !== 0) throw new Error(`a TRIANGLE_LIST needs its points in threes, it has ${points.length}`);
  const checkScale = (axes: readonly number[], what: string): void => {
    for (const axis of axes) if (!(scale[axis]! > 0)) throw new Error(`its scale.${'xyz'[axis]} is ${scale[axis]}; ${what} must be above 0`);
  };
  if (kind === 'cube' || kind === 'sphere' || kind === 'cylinder' || kind === 'cube-list' || kind === 'sphere-list') checkScale([0, 1, 2], 'its size');
  else if (kind === 'arrow') checkScale(points.length > 0 ? [0, 1] : [0, 1, 2], 'its size');
  else if (kind === 'line-strip' || kind === 'line-list') checkScale([0], 'a line’s width');
  else if (kind === 'points') checkScale([0, 1], 'a point’s size');
  else if (kind === 'text') checkScale([2], 'a text’s height');

  const pointsM: number[] = [];
  if (usesPoints) {
    points.forEach((point) => pointsM.push(point.finite('x'), point.finite('y'), point.finite('z')));
  }
  const colourList = marker.has('colors') ? marker.objects('colors') : [];
  let colours: number[] | undefined;
  if (usesPoints && colourList.length > 0) {
    if (colourList.length !== points.length) throw new Error(`it has ${points.length} points but ${colourList.length} colors (one per point, or none)`);
    colours = colourList.flatMap(rgba);
  }
  let text: string | undefined;
  if (kind === 'text') {
    text = marker.string('text');
    if (text.length > 1000) text = `${text.slice(0, 1000)}…`;
  }
  return {
    action: 'add',
    key,
    name,
    frame,
    frameLocked: marker.has('frame_locked') ? marker.boolean('frame_locked') : false,
    lifetimeMs: lifetimeMs(marker),
    shape: {
      kind,
      pose: { t, q: [q.x, q.y, q.z, q.w] },
      scale,
      colour,
      ...(usesPoints ? { pointsM: pointsM.map(roundMm) } : {}),
      ...(colours !== undefined ? { colours } : {}),
      ...(text !== undefined ? { text } : {}),
    },
  };
}

/** An all-zero orientation is "not rotated" (rviz assumes the identity); otherwise a unit quaternion, or nearly one, normalised. */
function markerRotation(q: Quaternion): Quaternion {
  if (q.x === 0 && q.y === 0 && q.z === 0 && q.w === 0) return { x: 0, y: 0, z: 0, w: 1 };
  const unit = unitQuaternion(q);
  if (unit === undefined) throw new Error(`its pose.orientation is not a unit quaternion (length ${Math.hypot(q.x, q.y, q.z, q.w).toPrecision(3)})`);
  return unit;
}

function rgba(colour: WireObject): [number, number, number, number] {
  const channel = (name: string): number => {
    const value = colour.finite(name);
    return Math.min(1, Math.max(0, value));
  };
  return [channel('r'), channel('g'), channel('b'), channel('a')];
}

/** ROS 1 `{secs, nsecs}` or ROS 2 `{sec, nanosec}`; an absent lifetime is for ever. */
function lifetimeMs(marker: WireObject): number {
  if (!marker.has('lifetime')) return 0;
  const lifetime = marker.object('lifetime');
  const ros2 = lifetime.has('sec');
  const ms = (ros2 ? lifetime.finite('sec') : lifetime.finite('secs')) * 1000 + (ros2 ? lifetime.finite('nanosec') : lifetime.finite('nsecs')) / 1e6;
  if (ms < 0) throw new Error(`its lifetime is negative (${ms} ms)`);
  return ms;
}

/** An int32 field: CBOR and JSON both bring a plain integer. */
function integer(object: WireObject, name: string): number {
  const value = object.number(name);
  if (!Number.isSafeInteger(value)) throw new WireFieldError(`${object.path}.${name}`, `expected an integer, got ${value}`);
  return value;
}

/** Positions go to the UI to a tenth of a millimetre: the JSON stays small. */
function roundMm(value: number): number {
  return Math.round(value * 1e4) / 1e4;
}
