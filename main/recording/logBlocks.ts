// A log read as blocks: a block is a byte range of an MCAP file holding messages (a chunk, or a run
// of unchunked records), with its log-time span and channels. Blocks come from a log's chunk index
// or from reading a damaged log through (logScan.ts); each is read and checked on its own (CRC,
// decompression, record framing), so one damaged block costs only its own messages.
import type { FileHandle } from 'node:fs/promises';
import { McapRecordBuilder, McapStreamReader, type McapTypes } from '@mcap/core';
import { DECOMPRESS_HANDLERS } from './recordingReader.ts';

export interface LogBlock {
  offset: number;
  length: number;
  startNs: bigint;
  endNs: bigint;
  /** The channels with messages in the block; undefined when not known before reading it. */
  channelIds: ReadonlySet<number> | undefined;
  /** 1-based position among the file's chunks, for messages to the operator; undefined for unchunked runs. */
  chunkNumber: number | undefined;
}

export interface LogDefinitions {
  schemas: ReadonlyMap<number, McapTypes.Schema>;
  channels: ReadonlyMap<number, McapTypes.Channel>;
}

/** Schema and channel records that let a block be parsed on its own (its messages name channels defined elsewhere). */
export function definitionRecords(definitions: LogDefinitions): Uint8Array {
  const builder = new McapRecordBuilder();
  for (const schema of definitions.schemas.values()) builder.writeSchema(schema);
  for (const channel of definitions.channels.values()) builder.writeChannel(channel);
  return builder.buffer;
}

/**
 * Every record in `definitions` then `bytes` (whole top-level records), chunks opened, CRCs
 * checked. Throws when anything is damaged. `definitions` are the schema and channel records read
 * before these, so that messages find their channels.
 */
export function parseRecords(bytes: Uint8Array, definitions: Uint8Array): McapTypes.TypedMcapRecord[] {
  const reader = new McapStreamReader({ noMagicPrefix: true, decompressHandlers: DECOMPRESS_HANDLERS, validateCrcs: true });
  reader.append(definitions);
  reader.append(bytes);
  const records: McapTypes.TypedMcapRecord[] = [];
  for (let record = reader.nextRecord(); record !== undefined; record = reader.nextRecord()) records.push(record);
  if (!reader.done() && reader.bytesRemaining() > 0) throw new Error(`${reader.bytesRemaining()} bytes do not make a whole record`);
  return records;
}

export async function readBytes(handle: FileHandle, offset: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  const { bytesRead } = await handle.read(buffer, 0, length, offset);
  if (bytesRead !== length) throw new Error(`the file ends at byte ${offset + bytesRead}, inside a record that should end at byte ${offset + length}`);
  return buffer;
}

/** The messages of one block, in log-time order. Throws when the block is damaged. */
export async function readBlockMessages(handle: FileHandle, block: LogBlock, definitions: Uint8Array): Promise<McapTypes.Message[]> {
  const records = parseRecords(await readBytes(handle, block.offset, block.length), definitions);
  const messages = records.filter((record): record is McapTypes.TypedMcapRecords['Message'] => record.type === 'Message');
  return messages.sort((a, b) => (a.logTime < b.logTime ? -1 : a.logTime > b.logTime ? 1 : 0));
}

/** Which blocks a time range over some channels needs, in order of their first message. */
export function blocksFor(blocks: readonly LogBlock[], startNs: bigint, endNs: bigint, channelIds: ReadonlySet<number> | undefined): LogBlock[] {
  return blocks
    .filter((block) => block.startNs <= endNs && block.endNs >= startNs)
    .filter((block) => channelIds === undefined || block.channelIds === undefined || [...block.channelIds].some((id) => channelIds.has(id)))
    .sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : a.offset - b.offset));
}
