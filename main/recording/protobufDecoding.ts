// MCAP `protobuf` channels as Foxglove's tools and the robot's own code write them: the schema is a
// binary FileDescriptorSet (the message's file and every file it imports) naming the message by its
// full name, and each message is the protobuf wire bytes. protobufjs reads both (through
// @mcap/support's descriptor loader). A message comes back as plain fields under their .proto names,
// every field present (proto3 leaves defaults off the wire), 64-bit integers as bigint (nothing lost
// beyond 2^53, as the CDR reader gives them), bytes as Uint8Array, enums as their numbers, and a
// google.protobuf.Timestamp or Duration as `{sec, nsec}`, the shape the rest of review reads stamps in.
import { protobufFromBinaryDescriptor } from '@mcap/support';
import type { McapTypes } from '@mcap/core';
import protobuf from 'protobufjs';

/** A channel's schema that cannot be read: its messages cannot be decoded, whatever they hold. */
export class UnreadableSchemaError extends Error {}

const TIME_TYPES = new Set(['.google.protobuf.Timestamp', '.google.protobuf.Duration']);
const LONG_TYPES = new Set(['int64', 'sint64', 'sfixed64']);
const ULONG_TYPES = new Set(['uint64', 'fixed64']);

/** The decoder of a `protobuf` channel whose schema is `schema`; throws UnreadableSchemaError, in words, when the schema does not parse or lacks the type. */
export function protobufDecoder(schema: McapTypes.Schema): (data: Uint8Array) => unknown {
  let root: protobuf.Root;
  try {
    root = protobufFromBinaryDescriptor(schema.data);
    root.resolveAll();
  } catch (error) {
    throw new UnreadableSchemaError(`its protobuf schema ${schema.name} is not a FileDescriptorSet that parses (${(error as Error).message})`);
  }
  let type: protobuf.Type;
  try {
    type = root.lookupType(schema.name);
  } catch {
    const names = allTypeNames(root);
    const offered = names.length === 0 ? 'none' : names.slice(0, 8).join(', ') + (names.length > 8 ? ', …' : '');
    throw new UnreadableSchemaError(`its protobuf schema has no message type ${schema.name} (it defines ${offered})`);
  }
  return (data) => {
    let message: protobuf.Message;
    try {
      message = type.decode(data);
    } catch (error) {
      throw new Error(`the bytes do not match the protobuf type ${schema.name}: ${(error as Error).message}`);
    }
    return plainMessage(type, message);
  };
}

function allTypeNames(namespace: protobuf.NamespaceBase): string[] {
  return namespace.nestedArray.flatMap((nested) => [
    ...(nested instanceof protobuf.Type ? [nested.fullName.replace(/^\./, '')] : []),
    ...(nested instanceof protobuf.Namespace ? allTypeNames(nested) : []),
  ]);
}

function plainMessage(type: protobuf.Type, message: protobuf.Message): Record<string, unknown> {
  const record = message as unknown as Record<string, unknown>;
  if (TIME_TYPES.has(type.fullName)) return { sec: Number(plainValue(type.fields['seconds']!, record['seconds'])), nsec: Number(record['nanos'] ?? 0) };
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    // A member of a oneof that is not the one set is left out: it was never sent.
    if (field.partOf !== null && !Object.prototype.hasOwnProperty.call(record, field.name)) continue;
    const value = record[field.name];
    if (field.map) {
      const entries = Object.entries((value ?? {}) as Record<string, unknown>);
      out[field.name] = Object.fromEntries(entries.map(([key, entry]) => [key, plainValue(field, entry)]));
    } else if (field.repeated) out[field.name] = ((value ?? []) as unknown[]).map((element) => plainValue(field, element));
    else {
      const plain = plainValue(field, value);
      if (plain !== undefined) out[field.name] = plain;
    }
  }
  return out;
}

function plainValue(field: protobuf.Field, value: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type)
    return value === null || value === undefined ? undefined : plainMessage(field.resolvedType, value as protobuf.Message);
  if (LONG_TYPES.has(field.type)) return longValue(value, false);
  if (ULONG_TYPES.has(field.type)) return longValue(value, true);
  if (field.type === 'bytes' && value instanceof Uint8Array) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return value;
}

/** protobufjs reads a 64-bit integer as a Long (or a number without the long package): as a bigint, exactly. */
function longValue(value: unknown, unsigned: boolean): bigint {
  if (typeof value === 'number') return BigInt(value);
  if (typeof value === 'string') return BigInt(value);
  const long = value as { low: number; high: number };
  const bits = (BigInt(long.high >>> 0) << 32n) | BigInt(long.low >>> 0);
  return unsigned ? BigInt.asUintN(64, bits) : BigInt.asIntN(64, bits);
}
