// sensor_msgs/LaserScan → LaserScan. Ranges may be non-finite by design (REP 117: +inf for "nothing
// within range", NaN for "no reading"). CBOR keeps both; JSON turns both into null, so over JSON the
// distinction is lost and null is read as NaN: claiming "nothing there" (inf) for a beam we know
// nothing about would make the scan look emptier than it is. Subscribe to scans over CBOR (the
// default) to keep inf.
import type { LaserScan } from '../../../core/messages.ts';
import { DecodeProblem, decodeWith, readHeader, type Decoded } from './decoded.ts';

/** More beams than any real scanner produces per revolution (a 0.01° scanner has 36 000). */
export const MAX_SCAN_BEAMS = 1_000_000;

const SCAN_HINT = 'Check the LiDAR driver: it should publish sensor_msgs/LaserScan with finite angles and range limits.';

export function decodeLaserScan(wire: unknown): Decoded<LaserScan> {
  return decodeWith(wire, 'sensor_msgs/LaserScan', SCAN_HINT, (message) => {
    const header = readHeader(message);
    const rangeMinM = message.finite('range_min');
    const rangeMaxM = message.finite('range_max');
    if (rangeMinM < 0 || rangeMaxM < rangeMinM) throw new DecodeProblem(`range limits [${rangeMinM}, ${rangeMaxM}] m are not a valid interval`);
    const rangesM = message.float32s('ranges');
    if (rangesM.length > MAX_SCAN_BEAMS) throw new DecodeProblem(`${rangesM.length} ranges is more than ${MAX_SCAN_BEAMS}`);
    return {
      msg: {
        kind: 'LaserScan',
        frameId: header.frameId,
        angleMinRad: message.finite('angle_min'),
        angleMaxRad: message.finite('angle_max'),
        angleIncrementRad: message.finite('angle_increment'),
        rangeMinM,
        rangeMaxM,
        rangesM,
      },
      stampMs: header.stampMs,
    };
  });
}
