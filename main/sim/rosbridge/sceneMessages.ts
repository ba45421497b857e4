// The messages that let a 3D view draw the robot where it is: its model (std_msgs/String on
// /robot_description), its frames (tf2_msgs/TFMessage on /tf and /tf_static), the arena's map
// (nav_msgs/OccupancyGrid), the planned route (nav_msgs/Path) and markers (visualization_msgs/
// MarkerArray: navigationOverlay.ts), as ROS 1 message objects like rosMessages.ts's. The persona turns them
// into ROS 2's shape (every header and time inside, not just the top one).
import type { OccupancyGrid } from '../occupancyGrid.ts';
import type { OverlayMarker, RoutePose } from '../navigationOverlay.ts';
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

/** The planned route as nav_msgs/Path: every pose stamped alike in `frameId`, each facing the next. */
export function rosPath(route: readonly RoutePose[], seq: number, stampMs: number, frameId: string): RosMessage {
  return {
    header: rosHeader(seq, stampMs, frameId),
    poses: route.map(({ xM, yM, yawRad }) => ({
      header: rosHeader(0, stampMs, frameId),
      pose: { position: { x: xM, y: yM, z: 0 }, orientation: { x: 0, y: 0, z: Math.sin(yawRad / 2), w: Math.cos(yawRad / 2) } },
    })),
  };
}

/**
 * The markers as visualization_msgs/MarkerArray, after a DELETEALL, as a publisher that resends its
 * whole set does (what went away since goes). ROS 2's extra fields (texture, mesh file) are left to
 * their defaults by the persona's writers.
 */
export function rosMarkerArray(markers: readonly OverlayMarker[], stampMs: number): RosMessage {
  const deleteAll = { ...rosMarker(undefined, stampMs), action: MARKER_DELETEALL };
  return { markers: [deleteAll, ...markers.map((marker) => rosMarker(marker, stampMs))] };
}

const MARKER_ADD = 0;
const MARKER_DELETEALL = 3;

function rosMarker(marker: OverlayMarker | undefined, stampMs: number): RosMessage {
  const yaw = marker?.yawRad ?? 0;
  return {
    header: rosHeader(0, stampMs, marker?.frame ?? ''),
    ns: marker?.ns ?? '',
    id: marker?.id ?? 0,
    type: marker?.type ?? 0,
    action: MARKER_ADD,
    pose: {
      position: { ...(marker?.positionM ?? { x: 0, y: 0, z: 0 }) },
      orientation: { x: 0, y: 0, z: Math.sin(yaw / 2), w: Math.cos(yaw / 2) },
    },
    scale: { ...(marker?.scaleM ?? { x: 0, y: 0, z: 0 }) },
    // float32 on the wire.
    color:
      marker === undefined
        ? { r: 0, g: 0, b: 0, a: 0 }
        : { r: Math.fround(marker.colour.r), g: Math.fround(marker.colour.g), b: Math.fround(marker.colour.b), a: Math.fround(marker.colour.a) },
    lifetime: { secs: 0, nsecs: 0 },
    frame_locked: marker?.frameLocked ?? false,
    points: (marker?.points ?? []).map((point) => ({ ...point })),
    colors: [],
    text: marker?.text ?? '',
    mesh_resource: '',
    mesh_use_embedded_materials: false,
  };
}
