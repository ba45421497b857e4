// The messages that let a 3D view draw the robot where it is: its model (std_msgs/String on
// /robot_description), its frames (tf2_msgs/TFMessage on /tf and /tf_static) and the arena's map
// (nav_msgs/OccupancyGrid), as ROS 1 message objects like rosMessages.ts's. The persona turns them
// into ROS 2's shape (every header and time inside, not just the top one).
import type { OccupancyGrid } from '../occupancyGrid.ts';
import type { FrameTransform } from '../robotFrames.ts';
import { rosHeader, rosTimeFromMs, type RosMessage } from './rosMessages.ts';

export function rosString(text: string): RosMessage {
  return { data: text };
}

/** Every transform stamped alike; their headers' seq is 0, as tf2's broadcasters leave it. */
export function rosTfMessage(transforms: readonly FrameTransform[], stampMs: number): RosMessage {
  return {
    transforms: transforms.map(({ parentFrame, childFrame, translationM, rotation }) => ({
      header: rosHeader(0, stampMs, parentFrame),
      child_frame_id: childFrame,
      transform: {
        translation: { x: translationM.x, y: translationM.y, z: translationM.z },
        rotation: { x: rotation.x, y: rotation.y, z: rotation.z, w: rotation.w },
      },
    })),
  };
}

/** The grid lying flat in `frameId`, its origin at the corner of cell (0, 0); loaded when it is stamped. */
export function rosOccupancyGrid(grid: OccupancyGrid, seq: number, stampMs: number, frameId: string): RosMessage {
  return {
    header: rosHeader(seq, stampMs, frameId),
    info: {
      map_load_time: rosTimeFromMs(stampMs),
      // float32 on the wire: rounded as rospy would.
      resolution: Math.fround(grid.resolutionM),
      width: grid.width,
      height: grid.height,
      origin: { position: { x: grid.originXM, y: grid.originYM, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
    },
    data: grid.cells,
  };
}
