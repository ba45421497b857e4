// The end of an MCAP file: DataEnd, the summary section (schemas, channels, statistics, chunk
// indexes, each group with a summary offset) and the footer with the summary's CRC, as the MCAP
// specification lays them out; what lets an indexed reader open a log without reading its data.
import { crc32 } from 'node:zlib';
import { McapRecordBuilder, Opcode, type McapTypes } from '@mcap/core';

export interface SummaryContents {
  schemas: readonly McapTypes.Schema[];
  channels: readonly McapTypes.Channel[];
  statistics: McapTypes.Statistics;
  chunkIndexes: readonly McapTypes.ChunkIndex[];
}

const DATA_END_BYTES = 1 + 8 + 4;

/** The bytes that end a file whose data section ends at `dataEndOffset`. */
export function writeSummary(dataEndOffset: bigint, contents: SummaryContents): Uint8Array {
  const records = new McapRecordBuilder();
  // A data section CRC of 0 means "not computed": every chunk carries its own CRC already.
  records.writeDataEnd({ dataSectionCrc: 0 });
  const summaryStart = dataEndOffset + BigInt(DATA_END_BYTES);
  const offsets: McapTypes.SummaryOffset[] = [];
  const group = (groupOpcode: Opcode, write: () => void) => {
    const groupStart = dataEndOffset + BigInt(records.length);
    write();
    const groupLength = dataEndOffset + BigInt(records.length) - groupStart;
    if (groupLength > 0n) offsets.push({ groupOpcode, groupStart, groupLength });
  };
  group(Opcode.SCHEMA, () => contents.schemas.forEach((schema) => records.writeSchema(schema)));
  group(Opcode.CHANNEL, () => contents.channels.forEach((channel) => records.writeChannel(channel)));
  group(Opcode.STATISTICS, () => records.writeStatistics(contents.statistics));
  group(Opcode.CHUNK_INDEX, () => contents.chunkIndexes.forEach((chunkIndex) => records.writeChunkIndex(chunkIndex)));
  const summaryOffsetStart = dataEndOffset + BigInt(records.length);
  for (const offset of offsets) records.writeSummaryOffset(offset);

  const footerPrefix = new DataView(new ArrayBuffer(1 + 8 + 8 + 8));
  footerPrefix.setUint8(0, Opcode.FOOTER);
  footerPrefix.setBigUint64(1, 8n + 8n + 4n, true);
  footerPrefix.setBigUint64(9, summaryStart, true);
  footerPrefix.setBigUint64(17, summaryOffsetStart, true);
  const summaryCrc = crc32(new Uint8Array(footerPrefix.buffer), crc32(records.buffer.subarray(DATA_END_BYTES)));
  records.writeFooter({ summaryStart, summaryOffsetStart, summaryCrc });
  records.writeMagic();
  return records.buffer;
}
