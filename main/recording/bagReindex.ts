// A ROS 1 bag whose index (the connection and chunk-info records at its end) cannot be read, because
// it is damaged or the recording never closed, re-indexed the way `rosbag reindex` does: the records
// after the bag header are walked in order, each chunk's connections read from inside it and its
// messages' times and counts from the index-data records that follow it, until the index section,
// the end of the file, or damage. What is found is handed to @foxglove/rosbag as its own index.
import { Bag } from '@foxglove/rosbag';
import { Chunk, ChunkInfo, Connection, IndexData } from '@foxglove/rosbag/dist/cjs/record.js';

type Time = { sec: number; nsec: number };
type Decompress = Record<string, (buffer: Uint8Array, size: number) => Uint8Array>;

const OP_CHUNK = 0x05;
const OP_INDEX_DATA = 0x04;
const OP_CONNECTION = 0x07;
const MAX_HEADER_BYTES = 1 << 20;

export interface Reindexed {
  connections: Map<number, Connection>;
  chunkInfos: ChunkInfo[];
  /** Where the last whole chunk and its index records end. */
  endOfChunks: number;
  /** What the walk could not recover, in words. */
  problems: string[];
}

interface RawRecord {
  op: number;
  fields: Record<string, Uint8Array>;
  data: Uint8Array;
  end: number;
}

type Read = (offset: number, length: number) => Promise<Uint8Array>;

/** Reads the record at `offset` of the file, a piece at a time (a chunk's data is read whole, nothing more). */
async function recordAt(read: Read, sizeBytes: number, offset: number): Promise<RawRecord> {
  if (offset + 4 > sizeBytes) throw new Error(`a record at byte ${offset} is cut short`);
  const headerLength = viewOf(await read(offset, 4)).getUint32(0, true);
  if (headerLength > MAX_HEADER_BYTES || offset + 8 + headerLength > sizeBytes) throw new Error(`the record at byte ${offset} has a header that does not fit`);
  const header = await read(offset, 8 + headerLength);
  const dataLength = viewOf(header).getUint32(4 + headerLength, true);
  if (offset + 8 + headerLength + dataLength > sizeBytes) throw new Error(`the record at byte ${offset} is cut short`);
  const data = await read(offset + 8 + headerLength, dataLength);
  const record = readRecord(header, 0, offset, data);
  return { ...record, end: offset + 8 + headerLength + dataLength };
}

/** Reads the record at `offset` of `bytes` (header fields and data); throws in words when it does not fit or has no op. */
function readRecord(bytes: Uint8Array, offset: number, base = 0, separateData?: Uint8Array): RawRecord {
  const view = viewOf(bytes);
  if (offset + 4 > bytes.length) throw new Error(`a record at byte ${base + offset} is cut short`);
  const headerLength = view.getUint32(offset, true);
  if (headerLength > MAX_HEADER_BYTES || offset + 4 + headerLength + 4 > bytes.length)
    throw new Error(`the record at byte ${base + offset} has a header that does not fit`);
  const fields: Record<string, Uint8Array> = {};
  for (let at = offset + 4; at < offset + 4 + headerLength;) {
    const fieldLength = view.getUint32(at, true);
    const field = bytes.subarray(at + 4, at + 4 + fieldLength);
    const equals = field.indexOf(0x3d);
    if (fieldLength === 0 || at + 4 + fieldLength > offset + 4 + headerLength || equals < 0)
      throw new Error(`the record at byte ${base + offset} has a malformed header`);
    fields[new TextDecoder().decode(field.subarray(0, equals))] = field.subarray(equals + 1);
    at += 4 + fieldLength;
  }
  const dataLength = view.getUint32(offset + 4 + headerLength, true);
  const dataStart = offset + 8 + headerLength;
  if (separateData === undefined && dataStart + dataLength > bytes.length) throw new Error(`the record at byte ${base + offset} is cut short`);
  if (fields['op']?.length !== 1) throw new Error(`the record at byte ${base + offset} has no op`);
  const data = separateData ?? bytes.subarray(dataStart, dataStart + dataLength);
  return { op: fields['op'][0]!, fields, data, end: dataStart + dataLength };
}

const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const earlier = (a: Time, b: Time) => a.sec < b.sec || (a.sec === b.sec && a.nsec < b.nsec);

/** Walks the bag's records from just after its header; `read` reads bytes of the file. */
/** `indexAt`: where the bag's header says its index starts; damage found there is that index's, nothing more is lost. */
export async function reindexBag(read: Read, sizeBytes: number, decompress: Decompress, indexAt?: number): Promise<Reindexed> {
  const connections = new Map<number, Connection>();
  const chunkInfos: ChunkInfo[] = [];
  let offset = (await recordAt(read, sizeBytes, '#ROSBAG V2.0\n'.length)).end;
  let endOfChunks = offset;
  const problems: string[] = [];
  try {
    while (offset < sizeBytes) {
      const record = await recordAt(read, sizeBytes, offset);
      if (record.op !== OP_CHUNK) break; // the index section
      const chunk = new Chunk(record.fields);
      // A chunk whose contents do not read still gets its place: reading its messages says what is lost.
      try {
        const payload = chunk.compression === 'none' ? record.data : decompressChunk(chunk, record.data, decompress, offset);
        for (let at = 0; at < payload.length;) {
          const inner = readRecord(payload, at, offset);
          if (inner.op === OP_CONNECTION) {
            const connection = new Connection(inner.fields);
            connection.parseData(inner.data);
            if (!connections.has(connection.conn)) connections.set(connection.conn, connection);
          }
          at = inner.end;
        }
      } catch {
        // Said below only if it held a connection's only definition; its own messages are said when read.
      }
      let next = record.end;
      const counts: { conn: number; count: number }[] = [];
      let startTime: Time | undefined;
      let endTime: Time | undefined;
      let brokenAfter: unknown;
      while (next < sizeBytes) {
        let index: RawRecord;
        try {
          index = await recordAt(read, sizeBytes, next);
        } catch (error) {
          brokenAfter = error;
          break;
        }
        if (index.op !== OP_INDEX_DATA) break;
        const indexData = new IndexData(index.fields);
        indexData.parseData(index.data);
        counts.push({ conn: indexData.conn, count: indexData.count });
        for (const { time } of indexData.indices ?? []) {
          if (startTime === undefined || earlier(time, startTime)) startTime = time;
          if (endTime === undefined || earlier(endTime, time)) endTime = time;
        }
        next = index.end;
      }
      const info = Object.assign(Object.create(ChunkInfo.prototype) as ChunkInfo, {
        ver: 1,
        chunkPosition: offset,
        startTime: startTime ?? { sec: 0, nsec: 0 },
        endTime: endTime ?? { sec: 0, nsec: 0 },
        count: counts.length,
        connections: counts,
      });
      if (counts.length > 0) {
        const previous = chunkInfos.at(-1);
        if (previous !== undefined) previous.nextChunk = info;
        chunkInfos.push(info);
      }
      offset = next;
      endOfChunks = next;
      if (brokenAfter !== undefined) throw brokenAfter;
    }
  } catch (error) {
    if (endOfChunks !== indexAt) problems.push(`${(error as Error).message}: what follows byte ${endOfChunks} is skipped`);
  }
  const unknown = new Map<number, number>();
  for (const info of chunkInfos)
    for (const { conn, count } of info.connections) if (!connections.has(conn)) unknown.set(conn, (unknown.get(conn) ?? 0) + count);
  if (unknown.size > 0) {
    const lost = [...unknown.values()].reduce((sum, count) => sum + count, 0);
    problems.push(
      `${unknown.size} connection${unknown.size === 1 ? '' : 's'} (${lost} messages) had their definition only in chunks that cannot be read: their messages are skipped`,
    );
  }
  return { connections, chunkInfos, endOfChunks, problems };
}

function decompressChunk(chunk: Chunk, data: Uint8Array, decompress: Decompress, offset: number): Uint8Array {
  const handler = decompress[chunk.compression];
  if (handler === undefined) throw new Error(`the chunk at byte ${offset} is compressed with ${chunk.compression}, which Reins cannot read`);
  try {
    return handler(data, chunk.size);
  } catch (error) {
    throw new Error(`the chunk at byte ${offset} cannot be decompressed (${(error as Error).message})`);
  }
}

/** Gives the bag the index found by walking it, as if it had read its own. */
export function adoptIndex(bag: Bag, reindexed: Reindexed): void {
  bag.connections = reindexed.connections;
  bag.chunkInfos = reindexed.chunkInfos;
}
