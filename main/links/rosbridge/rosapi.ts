// The rosapi services the link relies on (ROS 1 and ROS 2 rosapi answer alike): topic discovery,
// message definitions and the robot's clock, and which ROS generation the robot runs. Responses are
// validated here; callers get plain values or a WireFieldError.
import { readStampMs } from './decode/decoded.ts';
import { WireFieldError, WireObject } from './decode/wireFields.ts';

export const ROSAPI_TOPICS = { service: '/rosapi/topics', type: 'rosapi/Topics' } as const;
export const ROSAPI_GET_TIME = { service: '/rosapi/get_time', type: 'rosapi/GetTime' } as const;
/** A node's parameter: on ROS 2 rosapi names it `NODE:PARAM` and answers its value as JSON text (the default's when there is none). */
export const ROSAPI_GET_PARAM = { service: '/rosapi/get_param', type: 'rosapi/GetParam' } as const;
export const ROSAPI_TOPICS_AND_RAW_TYPES = { service: '/rosapi/topics_and_raw_types', type: 'rosapi/TopicsAndRawTypes' } as const;

export type RosVersion = 1 | 2;

/**
 * ROS 1 or ROS 2, from the type names rosapi lists: ROS 2 names them `pkg/msg/Type`, ROS 1
 * `pkg/Type` (Lichtblick tells them apart the same way). Undefined when the list says neither.
 */
export function rosVersionOfTypes(types: Iterable<string>): RosVersion | undefined {
  let ros1 = false;
  for (const type of types) {
    const parts = type.split('/');
    if (parts.length === 3 && parts[1] === 'msg') return 2;
    if (parts.length === 2 && parts[0] !== '' && parts[1] !== '') ros1 = true;
  }
  return ros1 ? 1 : undefined;
}

/** `/rosapi/topics_and_raw_types` → ROS type → its full definition text (what decodes cbor-raw). */
export function parseTopicsAndRawTypes(values: unknown): Map<string, string> {
  const response = WireObject.root(values, '/rosapi/topics_and_raw_types');
  const types = response.strings('types');
  const definitions = response.strings('typedefs_full_text');
  if (definitions.length !== types.length) {
    throw new WireFieldError('/rosapi/topics_and_raw_types', `${types.length} types but ${definitions.length} definitions`);
  }
  return new Map(types.map((type, index) => [type, definitions[index]!]));
}

/** `/rosapi/topics` → topic → ROS type. */
export function parseTopicsResponse(values: unknown): Map<string, string> {
  const response = WireObject.root(values, '/rosapi/topics');
  const topics = response.strings('topics');
  const types = response.strings('types');
  if (topics.length !== types.length) {
    throw new WireFieldError('/rosapi/topics', `${topics.length} topics but ${types.length} types`);
  }
  return new Map(topics.map((topic, index) => [topic, types[index]!]));
}

/** `/rosapi/get_time` → the robot's time in ms on its own clock. */
export function parseTimeResponse(values: unknown): number {
  const stampMs = readStampMs(WireObject.root(values, '/rosapi/get_time').object('time'));
  if (stampMs === undefined) throw new WireFieldError('/rosapi/get_time.time', 'zero: the robot clock is not running (simulated time not started?)');
  return stampMs;
}

/**
 * The names rosapi's get_param is asked, in turn, for a node's parameter: on ROS 2 `NODE:PARAM`
 * (rosapi/params.py's naming); on ROS 1 a path on the parameter server, the node's private
 * `/NODE/PARAM` first, then the global `/PARAM` (where robot_state_publisher's robot_description sits).
 * An undetected version is taken as ROS 2.
 */
export function rosapiParameterNames(rosVersion: RosVersion | undefined, node: string, name: string): string[] {
  const nodeName = node.startsWith('/') ? node : `/${node}`;
  return rosVersion === 1 ? [`${nodeName}/${name}`, `/${name}`] : [`${nodeName}:${name}`];
}

/**
 * `/rosapi/get_param` → the parameter's value, or undefined where it is not set. rosapi answers a
 * missing node or parameter with the default asked for (here '', so `""`); rosapi 2.x also says
 * `successful: false` with a `reason`, which is thrown.
 */
export function parseGetParamResponse(values: unknown, name: string): unknown {
  const response = WireObject.root(values, '/rosapi/get_param');
  const raw = values as Record<string, unknown>;
  if (raw['successful'] === false)
    throw new WireFieldError('/rosapi/get_param', `${name}: ${typeof raw['reason'] === 'string' ? raw['reason'] : 'not successful'}`);
  const text = response.string('value');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WireFieldError('/rosapi/get_param.value', `${name}: not JSON (${text.slice(0, 40)})`);
  }
  return value === '' || value === null ? undefined : value;
}
