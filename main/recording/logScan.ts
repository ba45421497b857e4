// Reads an MCAP log through from the start when its index cannot be used (a crashed session leaves
// no footer; a cut or damaged file has none that can be trusted), to index it as blocks (logBlocks.ts)
// and say in words what is lost. It reads record headers, not data: a chunk followed by message
// indexes naming only channels already defined is indexed from its header (span) and those indexes
// (channels, counts) without reading or decompressing it, so indexing a 5 GiB log reads a few kB per
// chunk; a chunk without them, or that defines new channels, is read and opened on its own. Its CRC is
// checked when review reads it, as for a log opened through its summary. Unchunked messages are known
// by their headers. Memory stays at one chunk and a read window; the event loop is given back and
// progress told every few milliseconds, so the cockpit stays responsive and shows how far it is.
import type { FileHandle } from 'node:fs/promises';
import { Opcode, isKnownOpcode, type McapIndexedReader, type McapTypes } from '@mcap/core';
import { definitionRecords, parseRecords, readBytes, type LogBlock, type LogDefinitions } from './logBlocks.ts';
import { FileWindow } from './fileWindow.ts';
import { formatLogTime } from './logTimes.ts';

export interface ScannedLog extends LogDefinitions {
  schemas: Map<number, McapTypes.Schema>;
  channels: Map<number, McapTypes.Channel>;
  blocks: LogBlock[];
  messageCounts: Map<number, number>;
  chunkCount: number;
  problems: string[];
}

export interface ScanOptions {
  /** Told the fraction of the file read so far, now and then, and 1 at the end. */
  onProgress?: (fraction: number) => void;
  /** Open and check every chunk now (the strict reader refuses a damaged log on opening), not only those the message indexes do not describe. */
  openEveryChunk?: boolean;
}

const MAGIC_BYTES = 8;
const RECORD_HEADER_BYTES = 9;
/** A record claiming more than this is taken for damage, not read. */
const MAX_RECORD_BYTES = 512 * 1024 ** 2;
/** Unchunked messages are gathered into blocks of about this size. */
const RUN_BYTES = 1024 ** 2;
const YIELD_EVERY_MS = 10;
/** Opcode, record length, channel id, sequence, log time, publish time: all of a message but its data. */
const MESSAGE_HEAD_BYTES = 9 + 2 + 4 + 8 + 8;
/** Opcode, record length, start and end time, uncompressed size and CRC, compression's length. */
const CHUNK_HEAD_BYTES = 9 + 8 + 8 + 8 + 4 + 4;

/**
 * Whether a log's summary says where its messages are: in the chunks it indexes. One without chunk
 * indexes (its messages unchunked, or a writer that left the index out) says nothing of where they
 * are, so unless its statistics count none, the log must be read through to find them.
 */
export function summaryLocatesMessages(mcap: McapIndexedReader): boolean {
  return mcap.chunkIndexes.length > 0 || mcap.statistics?.messageCount === 0n;
}

export async function scanLog(handle: FileHandle, sizeBytes: number, options: ScanOptions = {}): Promise<ScannedLog> {
  const log: ScannedLog = { schemas: new Map(), channels: new Map(), blocks: [], messageCounts: new Map(), chunkCount: 0, problems: [] };
  const file = new FileWindow(handle, sizeBytes);
  let definitions = definitionRecords(log);
  let lastYieldMs = performance.now();
  let dataEnded = false;
  let damagedChunk: { number: number; startNs: bigint; endNs: bigint; reason: string; messages: number } | undefined;
  const reportDamagedChunk = () => {
    if (damagedChunk === undefined) return;
    const { number, startNs, endNs, reason, messages } = damagedChunk;
    log.problems.push(
      `chunk ${number} (${formatLogTime(startNs)}–${formatLogTime(endNs)}) ${reason}: its ${messages > 0 ? `${messages} ` : ''}messages are skipped`,
    );
    damagedChunk = undefined;
  };
  const readUpTo = () => {
    const endNs = log.blocks.reduce((latest, block) => (block.endNs > latest ? block.endNs : latest), -1n);
    return endNs < 0n ? 'nothing in it could be read' : `everything up to ${formatLogTime(endNs)} is shown`;
  };
  const learn = (records: readonly McapTypes.TypedMcapRecord[]) => {
    const known = log.schemas.size + log.channels.size;
    for (const record of records) {
      if (record.type === 'Schema') log.schemas.set(record.id, record);
      if (record.type === 'Channel') log.channels.set(record.id, record);
      if (record.type === 'Message') count(log.messageCounts, record.channelId, 1);
    }
    if (log.schemas.size + log.channels.size !== known) definitions = definitionRecords(log);
  };

  let position = MAGIC_BYTES;
  for (;;) {
    if (position >= sizeBytes) {
      if (!dataEnded) log.problems.push(`the log stops at byte ${position} without its summary (the session did not close cleanly): ${readUpTo()}`);
      break;
    }
    if (position + RECORD_HEADER_BYTES > sizeBytes) {
      log.problems.push(`the file ends mid-record at byte ${sizeBytes}: ${readUpTo()}`);
      break;
    }
    const header = await file.view(position, RECORD_HEADER_BYTES);
    const opcode = header.getUint8(0);
    const contentBytes = header.getBigUint64(1, true);
    const end = BigInt(position) + BigInt(RECORD_HEADER_BYTES) + contentBytes;
    if (!isKnownOpcode(opcode) && opcode < 0x80) {
      log.problems.push(
        `${dataEnded ? "the log's summary is damaged" : 'the file holds unreadable data'} from byte ${position} on (${sizeBytes - position} bytes): ${readUpTo()}`,
      );
      break;
    }
    if (end > BigInt(sizeBytes)) {
      log.problems.push(`the file ends mid-${opcode === Opcode.CHUNK ? 'chunk' : 'record'} at byte ${sizeBytes}: ${readUpTo()}`);
      break;
    }
    const recordBytes = Number(end) - position;
    if (opcode === Opcode.FOOTER) {
      if (Number(end) + MAGIC_BYTES < sizeBytes)
        log.problems.push(`${sizeBytes - Number(end) - MAGIC_BYTES} bytes of unexpected data follow the end of the log (byte ${Number(end) + MAGIC_BYTES})`);
      break;
    }
    if (
      dataEnded ||
      (opcode !== Opcode.CHUNK && opcode !== Opcode.MESSAGE && opcode !== Opcode.SCHEMA && opcode !== Opcode.CHANNEL && opcode !== Opcode.MESSAGE_INDEX)
    ) {
      // The summary after DataEnd is what failed to open; other records hold no messages.
      if (opcode === Opcode.DATA_END) dataEnded = true;
      position = Number(end);
      continue;
    }
    if (recordBytes > MAX_RECORD_BYTES) {
      log.problems.push(`a record at byte ${position} claims ${recordBytes} bytes, more than any log holds: it is skipped`);
      position = Number(end);
      continue;
    }
    if (opcode === Opcode.MESSAGE_INDEX) {
      if (damagedChunk !== undefined && recordBytes >= MESSAGE_INDEX_HEAD_BYTES)
        damagedChunk.messages += indexedMessages(await file.view(position, MESSAGE_INDEX_HEAD_BYTES));
    } else if (opcode === Opcode.CHUNK) {
      reportDamagedChunk();
      log.chunkCount++;
      const span = await chunkSpan(file, position, recordBytes);
      const indexes = await messageIndexesAfter(file, Number(end));
      if (!options.openEveryChunk && span !== undefined && indexes !== undefined && [...indexes.counts.keys()].every((id) => log.channels.has(id))) {
        // Indexed as it stands: its messages are read, and its CRC checked, when review reaches it.
        for (const [channelId, messages] of indexes.counts) count(log.messageCounts, channelId, messages);
        log.blocks.push({ offset: position, length: recordBytes, ...span, channelIds: new Set(indexes.counts.keys()), chunkNumber: log.chunkCount });
        position = indexes.end;
        await progress(position);
        continue;
      }
      const bytes = await readBytes(handle, position, recordBytes);
      const chunkHeader = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const startNs = chunkHeader.getBigUint64(RECORD_HEADER_BYTES, true);
      const endNs = chunkHeader.getBigUint64(RECORD_HEADER_BYTES + 8, true);
      try {
        const records = parseRecords(bytes, definitions);
        learn(records);
        const channelIds = new Set(records.flatMap((record) => (record.type === 'Message' ? [record.channelId] : [])));
        if (channelIds.size > 0) log.blocks.push({ offset: position, length: recordBytes, startNs, endNs, channelIds, chunkNumber: log.chunkCount });
      } catch (error) {
        damagedChunk = { number: log.chunkCount, startNs, endNs, reason: damageReason(error), messages: 0 };
      }
    } else if (opcode === Opcode.MESSAGE) {
      reportDamagedChunk();
      const message = recordBytes >= MESSAGE_HEAD_BYTES ? await file.view(position, MESSAGE_HEAD_BYTES) : undefined;
      const channelId = message?.getUint16(RECORD_HEADER_BYTES, true);
      if (channelId === undefined || !log.channels.has(channelId)) {
        const why = channelId === undefined ? `${recordBytes} bytes are too few for a message` : `its channel ${channelId} is not defined before it`;
        log.problems.push(`the record at byte ${position} is damaged (${why}): it is skipped`);
      } else {
        count(log.messageCounts, channelId, 1);
        addToRun(log.blocks, position, recordBytes, channelId, message!.getBigUint64(RECORD_HEADER_BYTES + 2 + 4, true));
      }
    } else {
      reportDamagedChunk();
      try {
        learn(parseRecords(await readBytes(handle, position, recordBytes), definitions));
      } catch (error) {
        log.problems.push(`the record at byte ${position} is damaged (${(error as Error).message}): it is skipped`);
      }
    }
    position = Number(end);
    await progress(position);
  }
  reportDamagedChunk();
  options.onProgress?.(1);
  return log;

  /** Tells how far the scan is and gives the event loop back, every few milliseconds. */
  async function progress(at: number): Promise<void> {
    if (performance.now() - lastYieldMs <= YIELD_EVERY_MS) return;
    options.onProgress?.(at / sizeBytes);
    await new Promise((resolve) => setImmediate(resolve));
    lastYieldMs = performance.now();
  }
}

function count(counts: Map<number, number>, channelId: number, messages: number): void {
  counts.set(channelId, (counts.get(channelId) ?? 0) + messages);
}

/** A chunk's log-time span, from its header; undefined when the header does not hold together. */
async function chunkSpan(file: FileWindow, position: number, recordBytes: number): Promise<{ startNs: bigint; endNs: bigint } | undefined> {
  if (recordBytes < CHUNK_HEAD_BYTES + 8) return undefined;
  const head = await file.view(position, CHUNK_HEAD_BYTES);
  const compressionBytes = head.getUint32(CHUNK_HEAD_BYTES - 4, true);
  if (CHUNK_HEAD_BYTES + compressionBytes + 8 > recordBytes) return undefined;
  const recordsBytes = (await file.view(position + CHUNK_HEAD_BYTES + compressionBytes, 8)).getBigUint64(0, true);
  if (BigInt(CHUNK_HEAD_BYTES + compressionBytes + 8) + recordsBytes !== BigInt(recordBytes)) return undefined;
  const startNs = head.getBigUint64(RECORD_HEADER_BYTES, true);
  const endNs = head.getBigUint64(RECORD_HEADER_BYTES + 8, true);
  return startNs <= endNs ? { startNs, endNs } : undefined;
}

/**
 * The message index records right after a chunk (one per channel with messages in it): how many
 * messages each channel has there, and where they end. Undefined when there are none, one does not
 * read as such or the file ends inside them, or they count no message: the chunk must be opened.
 */
async function messageIndexesAfter(file: FileWindow, chunkEnd: number): Promise<{ counts: Map<number, number>; end: number } | undefined> {
  const counts = new Map<number, number>();
  let at = chunkEnd;
  while (at + MESSAGE_INDEX_HEAD_BYTES <= file.sizeBytes) {
    const head = await file.view(at, MESSAGE_INDEX_HEAD_BYTES);
    if (head.getUint8(0) !== Opcode.MESSAGE_INDEX) break;
    const contentBytes = head.getBigUint64(1, true);
    const entriesBytes = head.getUint32(RECORD_HEADER_BYTES + 2, true);
    const end = BigInt(at + RECORD_HEADER_BYTES) + contentBytes;
    if (end > BigInt(file.sizeBytes) || BigInt(entriesBytes) + 6n !== contentBytes || entriesBytes % 16 !== 0) return undefined;
    if (entriesBytes > 0) count(counts, head.getUint16(RECORD_HEADER_BYTES, true), entriesBytes / 16);
    at = Number(end);
  }
  return counts.size === 0 ? undefined : { counts, end: at };
}

/** An unchunked message joins the run of messages just before it, or starts one. */
function addToRun(blocks: LogBlock[], position: number, recordBytes: number, channelId: number, logTimeNs: bigint): void {
  const last = blocks.at(-1);
  if (last !== undefined && last.chunkNumber === undefined && last.offset + last.length === position && last.length < RUN_BYTES) {
    last.length += recordBytes;
    if (logTimeNs < last.startNs) last.startNs = logTimeNs;
    if (logTimeNs > last.endNs) last.endNs = logTimeNs;
    (last.channelIds as Set<number>).add(channelId);
    return;
  }
  blocks.push({ offset: position, length: recordBytes, startNs: logTimeNs, endNs: logTimeNs, channelIds: new Set([channelId]), chunkNumber: undefined });
}

/** Opcode, record length, channel id, then the entries' byte length (each entry: log time and offset, 16 bytes). */
const MESSAGE_INDEX_HEAD_BYTES = RECORD_HEADER_BYTES + 2 + 4;

/** How many messages a MessageIndex record lists, from its head. */
function indexedMessages(head: DataView): number {
  return Math.floor(head.getUint32(RECORD_HEADER_BYTES + 2, true) / 16);
}

/** A chunk's failure in words: "fails its CRC check", "cannot be decompressed", … */
export function damageReason(error: unknown): string {
  const message = (error as Error).message;
  if (/crc/i.test(message)) return 'fails its CRC check';
  if (/Unsupported compression/i.test(message)) return `uses a compression Reins cannot read (${message.replace(/ \[.*\]$/, '')})`;
  if (/decompress|zstd|lz4|corrupt/i.test(message)) return 'cannot be decompressed';
  return `is damaged (${message.replace(/ \[.*\]$/, '')})`;
}
