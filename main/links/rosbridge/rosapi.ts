// The rosapi services the link relies on (ROS 1 and ROS 2 rosapi answer alike): topic discovery
// and the robot's clock. Responses are validated here; callers get plain values or a WireFieldError.
import { readStampMs } from './decode/decoded.ts';
import { WireFieldError, WireObject } from './decode/wireFields.ts';

export const ROSAPI_TOPICS = { service: '/rosapi/topics', type: 'rosapi/Topics' } as const;
export const ROSAPI_GET_TIME = { service: '/rosapi/get_time', type: 'rosapi/GetTime' } as const;

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
