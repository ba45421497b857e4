// Counts what arrives on each topic during a probe: rate, bytes per second and latency (receive
// time minus the robot's stamp, which the link has already moved onto the cockpit's clock).
import type { Received, RobotMessage } from '../../core/messages.ts';
import { percentiles } from '../../core/util/latencyWindow.ts';
import { rosFieldsBytes } from '../../core/rosFieldsBytes.ts';

export interface TopicReport {
  name: string;
  type: string;
  hz: number;
  bytesPerSec: number;
  /** Undefined where the robot's messages carry no usable stamp. */
  latencyMsP50: number | undefined;
}

/** Stamps further than this from the receive time are not stamps (zeros, unsynchronised clocks). */
const PLAUSIBLE_LATENCY_MS = 60_000;

export class TopicMeter {
  private count = 0;
  private bytes = 0;
  private firstMs: number | undefined;
  private lastMs: number | undefined;
  private readonly latenciesMs: number[] = [];

  constructor(
    readonly name: string,
    readonly type: string,
  ) {}

  record(received: Received<RobotMessage>): void {
    this.count++;
    this.bytes += payloadBytes(received.msg);
    this.firstMs ??= received.receiveTimeMs;
    this.lastMs = received.receiveTimeMs;
    const latencyMs = received.receiveTimeMs - received.sourceTimeMs;
    if (Number.isFinite(latencyMs) && Math.abs(latencyMs) < PLAUSIBLE_LATENCY_MS && this.latenciesMs.length < 100_000) {
      this.latenciesMs.push(latencyMs);
    }
  }

  report(windowSecs: number): TopicReport {
    const spanSecs = this.firstMs !== undefined && this.lastMs !== undefined ? (this.lastMs - this.firstMs) / 1000 : 0;
    const hz = this.count >= 2 && spanSecs > 0 ? (this.count - 1) / spanSecs : this.count / windowSecs;
    return {
      name: this.name,
      type: this.type,
      hz,
      bytesPerSec: this.bytes / windowSecs,
      latencyMsP50: this.latenciesMs.length > 0 ? percentiles(this.latenciesMs).p50 : undefined,
    };
  }
}

/** The size of a message's content: the bytes and numbers it carries, without wire overhead. */
export function payloadBytes(msg: RobotMessage): number {
  switch (msg.kind) {
    case 'Image':
    case 'CompressedImage':
    case 'PointCloud2':
      return msg.data.byteLength;
    case 'LaserScan':
      return msg.rangesM.byteLength + 24;
    case 'JointState':
      return msg.positionsRad.byteLength + msg.velocitiesRadps.byteLength + msg.effortsNm.byteLength;
    case 'AnalogInputs':
      return msg.voltagesV.byteLength;
    case 'Imu':
      return 10 * 8;
    case 'Odometry':
      return 13 * 8;
    case 'Twist':
      return 6 * 8;
    case 'RosFields':
      return rosFieldsBytes(msg.fields);
  }
}
