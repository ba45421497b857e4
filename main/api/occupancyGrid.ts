// nav_msgs/OccupancyGrid as a link delivers it (RosFields: `data` as an Int8Array, bytes or a plain
// array), read without ever throwing, and thinned for the UI: a grid wider or taller than the frame
// allows is max-pooled (a wall in any cell of a block keeps the block a wall; unknown, -1, is the
// lowest value, so a block with any known cell is known), its cells made larger to match.
import { canonicalTypeName } from '../links/rosbridge/decode/messageTypes.ts';
import { describeWireValue, WireObject } from '../links/rosbridge/decode/wireFields.ts';
import type { RigidTransform } from '../core/util/rigidTransform.ts';

export function isOccupancyGridType(rosType: string | undefined): boolean {
  return rosType !== undefined && canonicalTypeName(rosType) === 'nav_msgs/OccupancyGrid';
}

export interface OccupancyGrid {
  /** header.frame_id: the frame the grid lies in. */
  frame: string;
  resolutionM: number;
  width: number;
  height: number;
  /** The pose of cell (0, 0)'s corner in `frame` (info.origin), as sent. */
  frameFromOrigin: RigidTransform;
  /** Row-major from the origin: -1 unknown, 0–100 occupied. */
  cells: Int8Array;
}

/**
 * The grid, or why it cannot be drawn at all. `problem` beside a grid: its width × height disagrees
 * with its data (the grid is described, its cells are not drawn).
 */
export type ReadOccupancyGrid = { ok: true; grid: OccupancyGrid; problem: string | undefined } | { ok: false; problem: string };

export function readOccupancyGrid(fields: unknown, topic: string): ReadOccupancyGrid {
  try {
    const message = WireObject.root(fields, topic);
    const info = message.object('info');
    const origin = info.object('origin');
    const position = origin.object('position');
    const orientation = origin.object('orientation');
    const width = info.count('width');
    const height = info.count('height');
    const resolutionM = info.finite('resolution');
    if (width === 0 || height === 0) return { ok: false, problem: `the map on ${topic} is empty (${width} × ${height} cells)` };
    if (!(resolutionM > 0)) return { ok: false, problem: `the map on ${topic} has a resolution of ${resolutionM} m a cell; it must be above 0` };
    const cells = int8Cells((fields as Record<string, unknown>)['data'], `${topic}.data`);
    if (typeof cells === 'string') return { ok: false, problem: `the map on ${topic} could not be read: ${cells}` };
    const grid: OccupancyGrid = {
      frame: message.object('header').string('frame_id'),
      resolutionM,
      width,
      height,
      frameFromOrigin: {
        translation: { x: position.finite('x'), y: position.finite('y'), z: position.finite('z') },
        rotation: { x: orientation.finite('x'), y: orientation.finite('y'), z: orientation.finite('z'), w: orientation.finite('w') },
      },
      cells,
    };
    const problem =
      cells.length === width * height
        ? undefined
        : `the map on ${topic} is ${width} × ${height} = ${width * height} cells but carries ${cells.length}: its cells are not drawn`;
    return { ok: true, grid, problem };
  } catch (error) {
    return { ok: false, problem: `the map on ${topic} could not be read: ${(error as Error).message}` };
  }
}

/** int8[] in any of the shapes a link delivers; a string saying what is wrong otherwise. */
function int8Cells(value: unknown, path: string): Int8Array | string {
  if (value instanceof Int8Array) return value;
  if (value instanceof Uint8Array) return new Int8Array(value.buffer, value.byteOffset, value.byteLength);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'base64');
    return new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  if (Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    const items = value as ArrayLike<unknown>;
    const cells = new Int8Array(items.length);
    for (let index = 0; index < items.length; index++) {
      const item = items[index];
      if (typeof item !== 'number' || !Number.isInteger(item) || item < -128 || item > 127)
        return `${path}[${index}]: expected an int8, got ${describeWireValue(item)}`;
      cells[index] = item;
    }
    return cells;
  }
  return `${path}: expected int8 cells, got ${value === undefined ? 'nothing' : describeWireValue(value)}`;
}

export interface ThinnedGrid {
  width: number;
  height: number;
  /** Each thinned cell covers `factor` × `factor` of the robot's. */
  factor: number;
  cells: Int8Array;
}

/**
 * The grid with at most `maxCellsASide` cells a side: each block of factor × factor cells becomes
 * its highest value. Blocks at the far edges may be partial (they pool the cells there are), so the
 * thinned grid can reach up to factor − 1 cells beyond the robot's.
 */
export function thinOccupancyGrid(cells: Int8Array, width: number, height: number, maxCellsASide: number): ThinnedGrid {
  const factor = Math.max(1, Math.ceil(Math.max(width, height) / maxCellsASide));
  if (factor === 1) return { width, height, factor, cells };
  const thinWidth = Math.ceil(width / factor);
  const thinHeight = Math.ceil(height / factor);
  const thinned = new Int8Array(thinWidth * thinHeight).fill(-128);
  for (let row = 0; row < height; row++) {
    const from = row * width;
    const to = Math.floor(row / factor) * thinWidth;
    for (let block = 0; block < thinWidth; block++) {
      const start = from + block * factor;
      const end = from + Math.min(width, (block + 1) * factor);
      let highest = thinned[to + block]!;
      for (let at = start; at < end; at++) if (cells[at]! > highest) highest = cells[at]!;
      thinned[to + block] = highest;
    }
  }
  return { width: thinWidth, height: thinHeight, factor, cells: thinned };
}
