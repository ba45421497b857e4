// The messages of the Reins serial protocol (PROTOCOL.md §3) as a discriminated union, with the
// numbers the wire uses. Both directions share one union: a peer that receives a message meant for
// the other side treats it as unexpected, not as garbage.

export const PROTOCOL_VERSION = 1;

export const MESSAGE_TYPE = Object.freeze({
  hello: 0x01,
  helloReply: 0x02,
  heartbeat: 0x03,
  velocity: 0x10,
  ack: 0x11,
  sensor: 0x20,
  error: 0x7f,
} as const);

export type MessageTypeName = keyof typeof MESSAGE_TYPE;

/** Types from here up are vendor extensions: ignored silently when unknown (PROTOCOL.md §3). */
export const FIRST_VENDOR_TYPE = 0x80;

export const CAPABILITY = Object.freeze({ wheels: 1 << 0, analog: 1 << 1, imu: 1 << 2, velocityCommand: 1 << 3 } as const);

export const STATUS_FLAG = Object.freeze({ armed: 1 << 0, watchdogStopped: 1 << 1, clamped: 1 << 2 } as const);

export const ACK_RESULTS = ['applied', 'clamped', 'not-armed', 'invalid'] as const;
export type AckResult = (typeof ACK_RESULTS)[number];

export const ERROR_CODES = ['crc-mismatch', 'bad-frame', 'unknown-type', 'bad-payload', 'unsupported-version', 'rx-overflow'] as const;
/** Wire code = index + 1; an unknown code from a newer peer is kept as its number. */
export type ProtocolErrorCode = (typeof ERROR_CODES)[number] | number;

export const LIMITS = Object.freeze({
  maxPayloadBytes: 122,
  hostNameBytes: 32,
  deviceNameBytes: 32,
  firmwareVersionBytes: 16,
  errorTextBytes: 64,
  maxWheels: 4,
  maxAnalogChannels: 8,
});

export interface Hello {
  type: 'hello';
  protocolVersion: number;
  heartbeatPeriodMs: number;
  hostName: string;
}

/** What a device says about itself: the capabilities and limits of PROTOCOL.md §3 HELLO_REPLY. */
export interface DeviceInfo {
  protocolVersion: number;
  capabilities: number;
  wheelCount: number;
  analogCount: number;
  sensorRateHz: number;
  heartbeatTimeoutMs: number;
  heartbeatPeriodMs: number;
  encoderCountsPerRev: number;
  wheelRadiusM: number;
  trackM: number;
  maxLinearMps: number;
  maxAngularRadps: number;
  name: string;
  firmwareVersion: string;
}

export interface HelloReply extends DeviceInfo {
  type: 'helloReply';
}

export interface Heartbeat {
  type: 'heartbeat';
  senderTimeUs: number;
  status: number;
}

export interface Velocity {
  type: 'velocity';
  linearMps: number;
  angularRadps: number;
}

export interface Ack {
  type: 'ack';
  ackedSeq: number;
  result: AckResult;
  appliedLinearMps: number;
  appliedAngularRadps: number;
}

export interface WheelSample {
  encoderCounts: number;
  velocityRadps: number;
  dutyPermille: number;
}

export interface ImuSample {
  /** x, y, z, w; all NaN when the device does not estimate orientation. */
  orientation: [number, number, number, number];
  angularVelocityRadps: [number, number, number];
  linearAccelerationMps2: [number, number, number];
}

export interface Sensor {
  type: 'sensor';
  deviceTimeUs: number;
  wheels?: WheelSample[];
  analogMillivolts?: number[];
  imu?: ImuSample;
  status?: number;
  /** Blocks this version does not know, skipped by their length (a newer device's additions). */
  skippedBlockIds?: number[];
}

export interface ProtocolError {
  type: 'error';
  code: ProtocolErrorCode;
  text: string;
}

export type ProtocolMessage = Hello | HelloReply | Heartbeat | Velocity | Ack | Sensor | ProtocolError;

export function hasCapability(info: DeviceInfo, capability: keyof typeof CAPABILITY): boolean {
  return (info.capabilities & CAPABILITY[capability]) !== 0;
}
