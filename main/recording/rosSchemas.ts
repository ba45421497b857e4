// The ROS 1 types the recorder writes, as MCAP `ros1msg` schemas (the definitions are shared with the
// sim's rosbridge server: links/rosMessageDefinitions.ts), so Foxglove and Lichtblick open the streams
// as the standard types.
import { parse } from '@foxglove/rosmsg';
import { fullMessageDefinition } from '../core/rosMessageDefinitions.ts';

type MessageDefinition = ReturnType<typeof parse>[number];

export type RosSchemaName =
  | 'sensor_msgs/Image'
  | 'sensor_msgs/CompressedImage'
  | 'sensor_msgs/LaserScan'
  | 'sensor_msgs/PointCloud2'
  | 'sensor_msgs/JointState'
  | 'sensor_msgs/Imu'
  | 'nav_msgs/Odometry'
  | 'geometry_msgs/Twist';

/** The full ROS 1 definition text of a type, as it goes into an MCAP schema record. */
export function rosDefinitionText(name: RosSchemaName): string {
  return fullMessageDefinition(name);
}

const parsed = new Map<string, MessageDefinition[]>();

/** Parsed definitions for a schema's text (cached), for rosmsg-serialization's writer and reader. */
export function parsedDefinitions(text: string): MessageDefinition[] {
  let definitions = parsed.get(text);
  if (definitions === undefined) {
    definitions = parse(text);
    parsed.set(text, definitions);
  }
  return definitions;
}
