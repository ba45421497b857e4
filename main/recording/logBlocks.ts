// A log read as blocks: a block is a byte range of an MCAP file holding messages (a chunk, or a run
// of unchunked records), with its log-time span and channels. Blocks come from a log's chunk index
// or from reading a damaged log through (logScan.ts); each is read and checked on its own (CRC,
// decompression, record framing), so one damaged block costs only its own messages. Messages come
// out of a log's blocks in log-time order however the blocks overlap.
import type { FileHandle } from 'node:fs/promises';
import { McapRecordBuilder, McapStreamReader, Opcode, type McapTypes } from '@mcap/core';
import { DECOMPRESS_HANDLERS } from './chunkCompression.ts';

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

/**
 * The messages of `blocks` logged in [startNs, endNs] on `channelIds` (all when undefined), in
 * log-time order, each block read with `readBlock`. Blocks may overlap in time: a block is read
 * once every block already open has passed its start, so only blocks that overlap are held at once.
 */
export async function* messagesInOrder(
  blocks: readonly LogBlock[],
  readBlock: (block: LogBlock) => Promise<McapTypes.Message[]>,
  startNs: bigint,
  endNs: bigint,
  channelIds: ReadonlySet<number> | undefined,
): AsyncGenerator<McapTypes.Message> {
  const pending = blocksFor(blocks, startNs, endNs, channelIds);
  const open: { messages: McapTypes.Message[]; next: number }[] = [];
  for (;;) {
    let earliest: (typeof open)[number] | undefined;
    for (const cursor of open)
      if (earliest === undefined || cursor.messages[cursor.next]!.logTime < earliest.messages[earliest.next]!.logTime) earliest = cursor;
    const nextBlock = pending[0];
    if (nextBlock !== undefined && (earliest === undefined || nextBlock.startNs <= earliest.messages[earliest.next]!.logTime)) {
      pending.shift();
      const messages = (await readBlock(nextBlock)).filter(
        (m) => m.logTime >= startNs && m.logTime <= endNs && (channelIds === undefined || channelIds.has(m.channelId)),
      );
      if (messages.length > 0) open.push({ messages, next: 0 });
      continue;
    }
    if (earliest === undefined) return;
    const message = earliest.messages[earliest.next++]!;
    if (earliest.next === earliest.messages.length) open.splice(open.indexOf(earliest), 1);
    yield message;
  }
}

/** The last message on `channelIds` logged at or before `timeNs` that `accept` takes, if any; each block read with `readBlock`. */
export async function latestMessage(
  blocks: readonly LogBlock[],
  readBlock: (block: LogBlock) => Promise<McapTypes.Message[]>,
  channelIds: ReadonlySet<number>,
  timeNs: bigint,
  accept: (message: McapTypes.Message) => boolean = () => true,
): Promise<McapTypes.Message | undefined> {
  let best: McapTypes.Message | undefined;
  for (const block of blocksFor(blocks, 0n, timeNs, channelIds).reverse()) {
    if (best !== undefined && block.endNs < best.logTime) continue;
    for (const message of await readBlock(block)) {
      if (!channelIds.has(message.channelId) || message.logTime > timeNs || !accept(message)) continue;
      if (best === undefined || message.logTime >= best.logTime) best = message;
    }
  }
  return best;
}

/** Each message index record: opcode, record length, channel id, then its entries' byte length (16 bytes an entry). */
const MESSAGE_INDEX_HEAD_BYTES = 1 + 8 + 2 + 4;

/**
 * How many messages each channel has, as the chunks' message indexes list them (each chunk's
 * indexes follow it, `messageIndexLength` bytes): for a log whose summary has no statistics.
 * Undefined when a chunk has no message indexes, or they do not read as such.
 */
export async function indexedMessageCounts(handle: FileHandle, chunks: readonly McapTypes.ChunkIndex[]): Promise<Map<number, number> | undefined> {
  const counts = new Map<number, number>();
  for (const chunk of chunks) {
    if (chunk.messageIndexOffsets.size === 0) return undefined;
    const bytes = await readBytes(handle, Number(chunk.chunkStartOffset + chunk.chunkLength), Number(chunk.messageIndexLength));
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < bytes.byteLength;) {
      if (at + MESSAGE_INDEX_HEAD_BYTES > bytes.byteLength || view.getUint8(at) !== Opcode.MESSAGE_INDEX) return undefined;
      const channelId = view.getUint16(at + 9, true);
      counts.set(channelId, (counts.get(channelId) ?? 0) + Math.floor(view.getUint32(at + 11, true) / 16));
      at += 9 + Number(view.getBigUint64(at + 1, true));
    }
  }
  return counts;
}
