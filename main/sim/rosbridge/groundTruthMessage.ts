// `/sim/ground_truth` (reins_sim/GroundTruth): whatever SimRobot.groundTruth() reports, with ROS
// field names (snake_case, units kept: `goalDistanceM` → `goal_distance_m`) and a header. Derived
// field by field, so the message grows with the robot's ground truth without a second list to keep.
import type { GroundTruth } from '../simRobot.ts';
import type { RosHeader, RosMessage, RosValue } from './rosMessages.ts';

export const GROUND_TRUTH_RATE_HZ = 30;

export function rosGroundTruth(truth: GroundTruth, header: RosHeader): RosMessage {
  return { header, ...rosFields(truth) };
}

function rosFields(record: object): RosMessage {
  const fields: RosMessage = {};
  for (const [key, value] of Object.entries(record)) {
    const converted = rosValue(value);
    if (converted !== undefined) fields[snakeCase(key)] = converted;
  }
  return fields;
}

function rosValue(value: unknown): RosValue | undefined {
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Uint8Array || value instanceof Float32Array || value instanceof Float64Array) return value;
  if (Array.isArray(value)) return value.map(rosValue).filter((item): item is RosValue => item !== undefined);
  if (typeof value === 'object' && value !== null) return rosFields(value);
  return undefined;
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}
