// Reads an MCAP log through from the start when its index cannot be used (a crashed session leaves
// no footer; a cut or damaged file has none that can be trusted): record by record, in bounded reads,
// never the whole file at once. Each chunk is opened and checked on its own, so what is readable is
// found and indexed as blocks (logBlocks.ts), and what is lost is said in words. The event loop is
// given back between chunks, so the cockpit stays responsive while a large log is scanned.
import type { FileHandle } from 'node:fs/promises';
import { Opcode, isKnownOpcode, type McapIndexedReader, type McapTypes } from '@mcap/core';
import { definitionRecords, parseRecords, readBytes, type LogBlock, type LogDefinitions } from './logBlocks.ts';
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
}

const MAGIC_BYTES = 8;
const RECORD_HEADER_BYTES = 9;
/** A record claiming more than this is taken for damage, not read. */
const MAX_RECORD_BYTES = 512 * 1024 ** 2;
/** Unchunked messages are gathered into blocks of about this size. */
const RUN_BYTES = 1024 ** 2;
const YIELD_EVERY_MS = 10;

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
      if (record.type === 'Message') log.messageCounts.set(record.channelId, (log.messageCounts.get(record.channelId) ?? 0) + 1);
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
    const header = await readBytes(handle, position, RECORD_HEADER_BYTES);
    const view = new DataView(header.buffer);
    const opcode = view.getUint8(0);
    const contentBytes = view.getBigUint64(1, true);
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
    const bytes = await readBytes(handle, position, recordBytes);
    if (opcode === Opcode.MESSAGE_INDEX) {
      if (damagedChunk !== undefined) damagedChunk.messages += indexedMessages(bytes);
    } else if (opcode === Opcode.CHUNK) {
      reportDamagedChunk();
      log.chunkCount++;
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
    } else {
      reportDamagedChunk();
      try {
        const records = parseRecords(bytes, definitions);
        learn(records);
        const message = records.find((record): record is McapTypes.TypedMcapRecords['Message'] => record.type === 'Message');
        if (message !== undefined) addToRun(log.blocks, position, recordBytes, message);
      } catch (error) {
        log.problems.push(`the record at byte ${position} is damaged (${(error as Error).message}): it is skipped`);
      }
    }
    position = Number(end);
    if (performance.now() - lastYieldMs > YIELD_EVERY_MS) {
      options.onProgress?.(position / sizeBytes);
      await new Promise((resolve) => setImmediate(resolve));
      lastYieldMs = performance.now();
    }
  }
  reportDamagedChunk();
  options.onProgress?.(1);
  return log;
}

/** An unchunked message joins the run of messages just before it, or starts one. */
function addToRun(blocks: LogBlock[], position: number, recordBytes: number, message: McapTypes.Message): void {
  const last = blocks.at(-1);
  if (last !== undefined && last.chunkNumber === undefined && last.offset + last.length === position && last.length < RUN_BYTES) {
    last.length += recordBytes;
    if (message.logTime < last.startNs) last.startNs = message.logTime;
    if (message.logTime > last.endNs) last.endNs = message.logTime;
    (last.channelIds as Set<number>).add(message.channelId);
    return;
  }
  blocks.push({
    offset: position,
    length: recordBytes,
    startNs: message.logTime,
    endNs: message.logTime,
    channelIds: new Set([message.channelId]),
    chunkNumber: undefined,
  });
}

/** How many messages a MessageIndex record lists (each entry: log time and offset, 16 bytes). */
function indexedMessages(record: Uint8Array): number {
  const view = new DataView(record.buffer, record.byteOffset, record.byteLength);
  const entriesBytes = view.getUint32(RECORD_HEADER_BYTES + 2, true);
  return Math.floor(entriesBytes / 16);
}

/** A chunk's failure in words: "fails its CRC check", "cannot be decompressed", … */
export function damageReason(error: unknown): string {
  const message = (error as Error).message;
  if (/crc/i.test(message)) return 'fails its CRC check';
  if (/Unsupported compression/i.test(message)) return `uses a compression Reins cannot read (${message.replace(/ \[.*\]$/, '')})`;
  if (/decompress|zstd|lz4|corrupt/i.test(message)) return 'cannot be decompressed';
  return `is damaged (${message.replace(/ \[.*\]$/, '')})`;
}
