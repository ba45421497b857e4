// The device side of the Reins serial protocol (main/links/serial/PROTOCOL.md) for the simulated
// robot: what native/firmware does on the ATmega, here in TypeScript. Silent until HELLO; armed
// while the host's heartbeats are fresh; stops the robot itself when they stop; ACKs commands
// with what it actually applied.
import { encodeFrame, type Frame, type FrameFault } from '../../links/serial/frames.ts';
import { FrameStreamDecoder } from '../../links/serial/frameStream.ts';
import {
  CAPABILITY,
  PROTOCOL_VERSION,
  STATUS_FLAG,
  type DeviceInfo,
  type ProtocolErrorCode,
  type ProtocolMessage,
} from '../../links/serial/protocolMessages.ts';
import { ZERO_DRIVE, type DriveCommand, type Imu, type JointState } from '../../core/messages.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';

export const SIM_DEVICE_INFO: Readonly<DeviceInfo> = Object.freeze({
  protocolVersion: PROTOCOL_VERSION,
  capabilities: CAPABILITY.wheels | CAPABILITY.imu | CAPABILITY.velocityCommand,
  wheelCount: 2,
  analogCount: 0,
  sensorRateHz: 50, // the simulated robot's joint_states rate: one SENSOR per joint sample
  heartbeatTimeoutMs: 400,
  heartbeatPeriodMs: 500,
  encoderCountsPerRev: 4096,
  wheelRadiusM: DIFF_DRIVE_SPEC.wheelRadiusM,
  trackM: DIFF_DRIVE_SPEC.trackM,
  maxLinearMps: DIFF_DRIVE_SPEC.maxLinearMps,
  maxAngularRadps: DIFF_DRIVE_SPEC.maxAngularRadps,
  name: 'reins-sim',
  firmwareVersion: '1.0.0-sim',
});

/** Wheel speed the simulated motors reach at full duty: only for the duty field of SENSOR. */
const FULL_DUTY_WHEEL_RADPS = (1.25 * DIFF_DRIVE_SPEC.maxLinearMps) / DIFF_DRIVE_SPEC.wheelRadiusM;
const ERROR_MIN_INTERVAL_MS = 200;
const FIRST_VENDOR_TYPE = 0x80;

export interface DeviceWire {
  /** Bytes to the host. */
  write(bytes: Uint8Array): void;
  /** The drive command the robot obeys now. */
  drive(command: DriveCommand): void;
  /** The device's monotonic clock, in ms. */
  nowMs(): number;
}

export class SimSerialDevice {
  private readonly decoder = new FrameStreamDecoder();
  private readonly info: DeviceInfo;
  private nextSeq = 0;
  private sessionOpen = false;
  private hostHeardMs = -Infinity;
  private nextHeartbeatMs = 0;
  private lastErrorMs = -Infinity;
  private command: DriveCommand | undefined;
  private watchdogStopped = false;
  private lastClamped = false;

  constructor(
    private readonly wire: DeviceWire,
    info: Partial<DeviceInfo> = {},
  ) {
    this.info = { ...SIM_DEVICE_INFO, ...info };
  }

  /** Bytes from the host. */
  receive(bytes: Uint8Array): void {
    for (const event of this.decoder.push(bytes)) {
      if (event.status === 'frame') this.onFrame(event.frame);
      else if (event.status === 'fault') this.onFault(event.fault);
    }
  }

  /** The host's side went away and came back: a half-received frame belongs to nobody. */
  resetReceiver(): void {
    this.decoder.reset();
  }

  /** One joint sample from the robot (with the latest IMU reading): a SENSOR frame, once a host said HELLO. */
  sample(deviceTimeUs: number, joints: JointState, imu: Imu | undefined): void {
    if (!this.sessionOpen) return;
    const countsPerRad = this.info.encoderCountsPerRev / (2 * Math.PI);
    const wheels = Array.from(joints.positionsRad, (positionRad, i) => {
      const velocityRadps = joints.velocitiesRadps[i] ?? 0;
      return {
        encoderCounts: Math.round(positionRad * countsPerRad) | 0,
        velocityRadps,
        dutyPermille: Math.round((1000 * velocityRadps) / FULL_DUTY_WHEEL_RADPS),
      };
    });
    const message: ProtocolMessage = { type: 'sensor', deviceTimeUs: deviceTimeUs >>> 0, wheels, status: this.status() };
    if (imu) {
      const { orientation: q, angularVelocityRadps: w, linearAccelerationMps2: a } = imu;
      message.imu = { orientation: [q.x, q.y, q.z, q.w], angularVelocityRadps: [w.x, w.y, w.z], linearAccelerationMps2: [a.x, a.y, a.z] };
    }
    this.send(message);
  }

  /**
   * Runs the watchdog and the device's heartbeat; call every 10–20 ms. While armed it also renews
   * the held command, since the simulated base (like many) brakes on a command older than 0.5 s.
   */
  poll(deviceTimeUs: number): void {
    const nowMs = this.wire.nowMs();
    if (this.command && !this.armed(nowMs)) {
      this.command = undefined;
      this.watchdogStopped = true;
      this.wire.drive(ZERO_DRIVE);
    } else if (this.command) {
      this.wire.drive(this.command);
    }
    if (this.sessionOpen && nowMs >= this.nextHeartbeatMs) {
      this.nextHeartbeatMs = nowMs + this.info.heartbeatPeriodMs;
      this.send({ type: 'heartbeat', senderTimeUs: deviceTimeUs >>> 0, status: this.status() });
    }
  }

  private onFrame({ seq, message }: Frame): void {
    const nowMs = this.wire.nowMs();
    switch (message.type) {
      case 'hello':
        this.sessionOpen = true;
        this.hostHeardMs = nowMs;
        this.nextHeartbeatMs = nowMs + this.info.heartbeatPeriodMs;
        this.send({ type: 'helloReply', ...this.info });
        return;
      case 'heartbeat':
        this.hostHeardMs = nowMs;
        return;
      case 'velocity':
        return this.onVelocity(seq, message.linearMps, message.angularRadps, nowMs);
      case 'error':
        return; // never answer an ERROR with an ERROR
      default:
        this.sendError('unknown-type', `type ${message.type} is not for a device`);
    }
  }

  private onVelocity(seq: number, linearMps: number, angularRadps: number, nowMs: number): void {
    if (!Number.isFinite(linearMps) || !Number.isFinite(angularRadps)) {
      this.stop();
      this.send({ type: 'ack', ackedSeq: seq, result: 'invalid', appliedLinearMps: 0, appliedAngularRadps: 0 });
      return;
    }
    if (!this.armed(nowMs)) {
      this.send({ type: 'ack', ackedSeq: seq, result: 'not-armed', appliedLinearMps: 0, appliedAngularRadps: 0 });
      return;
    }
    const applied = { linearMps: clamp(linearMps, this.info.maxLinearMps), angularRadps: clamp(angularRadps, this.info.maxAngularRadps) };
    this.lastClamped = applied.linearMps !== linearMps || applied.angularRadps !== angularRadps;
    this.watchdogStopped = false;
    this.command = applied;
    this.wire.drive(applied);
    const result = this.lastClamped ? 'clamped' : 'applied';
    this.send({ type: 'ack', ackedSeq: seq, result, appliedLinearMps: applied.linearMps, appliedAngularRadps: applied.angularRadps });
  }

  private onFault(fault: FrameFault): void {
    if (fault.kind === 'unknown-type' && (fault.typeCode ?? 0) >= FIRST_VENDOR_TYPE) return;
    const codes: Record<FrameFault['kind'], ProtocolErrorCode> = {
      'crc-mismatch': 'crc-mismatch',
      'unknown-type': 'unknown-type',
      'bad-payload': 'bad-payload',
      'unsupported-version': 'unsupported-version',
      'bad-cobs': 'bad-frame',
      'too-short': 'bad-frame',
      'too-long': 'bad-frame',
    };
    this.sendError(codes[fault.kind], fault.detail);
  }

  private stop(): void {
    this.command = undefined;
    this.wire.drive(ZERO_DRIVE);
  }

  private armed(nowMs: number): boolean {
    return this.sessionOpen && nowMs - this.hostHeardMs < this.info.heartbeatTimeoutMs;
  }

  private status(): number {
    const nowMs = this.wire.nowMs();
    return (
      (this.armed(nowMs) ? STATUS_FLAG.armed : 0) | (this.watchdogStopped ? STATUS_FLAG.watchdogStopped : 0) | (this.lastClamped ? STATUS_FLAG.clamped : 0)
    );
  }

  /** Rate-limited, so line noise cannot make the device flood the line with complaints. */
  private sendError(code: ProtocolErrorCode, text: string): void {
    const nowMs = this.wire.nowMs();
    if (nowMs - this.lastErrorMs < ERROR_MIN_INTERVAL_MS) return;
    this.lastErrorMs = nowMs;
    this.send({ type: 'error', code, text });
  }

  private send(message: ProtocolMessage): void {
    const seq = this.nextSeq;
    this.nextSeq = (seq + 1) & 0xffff;
    this.wire.write(encodeFrame(message, seq));
  }
}

function clamp(value: number, limit: number): number {
  return Math.min(limit, Math.max(-limit, value));
}
