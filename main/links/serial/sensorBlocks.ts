// The SENSOR payload: a device timestamp and self-describing blocks (id, length, body), so a host
// skips blocks a newer device adds and a device sends only the sensors it has (PROTOCOL.md §3).
import { ByteReader, ByteWriter, PayloadError } from './byteCursor.ts';
import { LIMITS, type ImuSample, type Sensor, type WheelSample } from './protocolMessages.ts';

const BLOCK = Object.freeze({ wheels: 0x01, analog: 0x02, imu: 0x03, status: 0x04 } as const);
const WHEEL_BYTES = 10;
const IMU_BYTES = 40;

export function encodeSensor(sensor: Sensor): Uint8Array {
  const writer = new ByteWriter(96).u32(sensor.deviceTimeUs >>> 0);
  if (sensor.wheels !== undefined) {
    const wheels = sensor.wheels.slice(0, LIMITS.maxWheels);
    writer
      .u8(BLOCK.wheels)
      .u8(1 + wheels.length * WHEEL_BYTES)
      .u8(wheels.length);
    for (const wheel of wheels) {
      writer
        .i32(wheel.encoderCounts | 0)
        .f32(wheel.velocityRadps)
        .i16(clampInt(wheel.dutyPermille, -1000, 1000));
    }
  }
  if (sensor.analogMillivolts !== undefined) {
    const channels = sensor.analogMillivolts.slice(0, LIMITS.maxAnalogChannels);
    writer
      .u8(BLOCK.analog)
      .u8(1 + channels.length * 2)
      .u8(channels.length);
    for (const millivolts of channels) writer.u16(clampInt(millivolts, 0, 0xffff));
  }
  if (sensor.imu !== undefined) {
    writer.u8(BLOCK.imu).u8(IMU_BYTES);
    const { orientation, angularVelocityRadps, linearAccelerationMps2 } = sensor.imu;
    for (const value of [...orientation, ...angularVelocityRadps, ...linearAccelerationMps2]) writer.f32(value);
  }
  if (sensor.status !== undefined)
    writer
      .u8(BLOCK.status)
      .u8(1)
      .u8(sensor.status & 0xff);
  return writer.finish();
}

export function decodeSensor(payload: Uint8Array): Sensor {
  const reader = new ByteReader(payload);
  const sensor: Sensor = { type: 'sensor', deviceTimeUs: reader.u32('deviceTimeUs') };
  while (reader.remaining() > 0) {
    const id = reader.u8('block id');
    const length = reader.u8('block length');
    const body = new ByteReader(reader.bytesOf(length, `block 0x${hex(id)} body`));
    switch (id) {
      case BLOCK.wheels:
        sensor.wheels = decodeWheels(body, length);
        break;
      case BLOCK.analog:
        sensor.analogMillivolts = decodeAnalog(body, length);
        break;
      case BLOCK.imu:
        sensor.imu = decodeImu(body, length);
        break;
      case BLOCK.status:
        if (length < 1) throw new PayloadError('STATUS block is empty');
        sensor.status = body.u8('status flags');
        break;
      default:
        (sensor.skippedBlockIds ??= []).push(id);
    }
  }
  return sensor;
}

function decodeWheels(body: ByteReader, length: number): WheelSample[] {
  const count = body.u8('wheel count');
  if (count > LIMITS.maxWheels || length < 1 + count * WHEEL_BYTES) {
    throw new PayloadError(`WHEELS block of ${length} bytes cannot hold ${count} wheels (at most ${LIMITS.maxWheels}, ${WHEEL_BYTES} bytes each)`);
  }
  const wheels: WheelSample[] = [];
  for (let i = 0; i < count; i++) {
    wheels.push({ encoderCounts: body.i32('encoderCounts'), velocityRadps: body.f32('velocityRadps'), dutyPermille: body.i16('dutyPermille') });
  }
  return wheels;
}

function decodeAnalog(body: ByteReader, length: number): number[] {
  const count = body.u8('analog channel count');
  if (count > LIMITS.maxAnalogChannels || length < 1 + count * 2) {
    throw new PayloadError(`ANALOG block of ${length} bytes cannot hold ${count} channels (at most ${LIMITS.maxAnalogChannels})`);
  }
  return Array.from({ length: count }, () => body.u16('millivolts'));
}

function decodeImu(body: ByteReader, length: number): ImuSample {
  if (length < IMU_BYTES) throw new PayloadError(`IMU block has ${length} bytes, needs ${IMU_BYTES}`);
  const f = (field: string): number => body.f32(field);
  return {
    orientation: [f('orientation.x'), f('orientation.y'), f('orientation.z'), f('orientation.w')],
    angularVelocityRadps: [f('angularVelocity.x'), f('angularVelocity.y'), f('angularVelocity.z')],
    linearAccelerationMps2: [f('linearAcceleration.x'), f('linearAcceleration.y'), f('linearAcceleration.z')],
  };
}

function clampInt(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : 0;
}

function hex(value: number): string {
  return value.toString(16).padStart(2, '0');
}
