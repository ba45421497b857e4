// The simulated robot's package files, as foxglove_bridge serves a robot's (its `assets`): the LiDAR
// housing as a binary STL made here from the sensor's own size (a drum with a narrower window band
// and a cap). Served by `package://` URI only; the foxglove sim's URDF names it (robotModel.ts).

/** The package the sim's URDF names its meshes in. */
export const SIM_PACKAGE = 'reins_sim';
export const LIDAR_HOUSING_URI = `package://${SIM_PACKAGE}/meshes/lidar_housing.stl`;
/** Sides of the drum: smooth enough at the scale it is drawn. */
const SEGMENTS = 24;

/** A drum of `radiusM` × `heightM` centred on its origin, z up: a base, a window band 85 % as wide, a cap. */
export function lidarHousingStl(radiusM: number, heightM: number): Uint8Array {
  const rings: Array<[radiusM: number, zM: number]> = [
    [radiusM, -heightM / 2],
    [radiusM, -heightM / 6],
    [radiusM * 0.85, -heightM / 6],
    [radiusM * 0.85, heightM / 6],
    [radiusM, heightM / 6],
    [radiusM, heightM / 2],
  ];
  const triangles: number[][] = [];
  const point = (ring: [number, number], segment: number): number[] => {
    const angle = (2 * Math.PI * segment) / SEGMENTS;
    return [ring[0] * Math.cos(angle), ring[0] * Math.sin(angle), ring[1]];
  };
  for (let segment = 0; segment < SEGMENTS; segment++) {
    for (let ring = 0; ring + 1 < rings.length; ring++) {
      const [a, b, c, d] = [
        point(rings[ring]!, segment),
        point(rings[ring]!, segment + 1),
        point(rings[ring + 1]!, segment + 1),
        point(rings[ring + 1]!, segment),
      ];
      triangles.push([...a, ...b, ...c], [...a, ...c, ...d]);
    }
    const bottom = point(rings[0]!, segment);
    const top = point(rings[rings.length - 1]!, segment);
    triangles.push([0, 0, -heightM / 2, ...point(rings[0]!, segment + 1), ...bottom]);
    triangles.push([0, 0, heightM / 2, ...top, ...point(rings[rings.length - 1]!, segment + 1)]);
  }
  return binaryStl(triangles);
}

/** Binary STL: an 80-byte header, a triangle count, then per triangle its normal, three corners and a 2-byte attribute. */
function binaryStl(triangles: readonly number[][]): Uint8Array {
  const bytes = new Uint8Array(84 + triangles.length * 50);
  bytes.set(new TextEncoder().encode('reins_sim lidar housing'), 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(80, triangles.length, true);
  triangles.forEach((corners, index) => {
    const offset = 84 + index * 50;
    const normal = normalOf(corners);
    for (let i = 0; i < 3; i++) view.setFloat32(offset + i * 4, normal[i]!, true);
    for (let i = 0; i < 9; i++) view.setFloat32(offset + 12 + i * 4, corners[i]!, true);
  });
  return bytes;
}

function normalOf(c: readonly number[]): [number, number, number] {
  const u = [c[3]! - c[0]!, c[4]! - c[1]!, c[5]! - c[2]!];
  const v = [c[6]! - c[0]!, c[7]! - c[1]!, c[8]! - c[2]!];
  const n = [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
  const length = Math.hypot(n[0]!, n[1]!, n[2]!) || 1;
  return [n[0]! / length, n[1]! / length, n[2]! / length];
}
