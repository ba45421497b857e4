// The end of an MCAP file: DataEnd, the summary section (schemas, channels, statistics, chunk
// indexes, each group with a summary offset) and the footer with the summary's CRC, as the MCAP
// specification lays them out; what lets an indexed reader open a log without reading its data.
import { crc32 } from 'node:zlib';
import { McapRecordBuilder, Opcode, type McapTypes } from '@mcap/core';

export interface SummaryContents {
  schemas: readonly McapTypes.Schema[];
  channels: readonly McapTypes.Channel[];
  statistics: McapTypes.Statistics;
  /**
   * The chunk index records, already encoded one after another: a long session writes tens of
   * thousands of chunks, and their indexes kept as bytes take a tenth of the memory they take as objects.
   */
  chunkIndexRecords: Uint8Array;
}

const DATA_END_BYTES = 1 + 8 + 4;

/** The bytes that end a file whose data section ends at `dataEndOffset`, in parts to be written in order. */
export function writeSummary(dataEndOffset: bigint, contents: SummaryContents): Uint8Array[] {
  const head = new McapRecordBuilder();
  // A data section CRC of 0 means "not computed": every chunk carries its own CRC already.
  head.writeDataEnd({ dataSectionCrc: 0 });
  const summaryStart = dataEndOffset + BigInt(DATA_END_BYTES);
  const offsets: McapTypes.SummaryOffset[] = [];
  const group = (groupOpcode: Opcode, groupStart: bigint, groupLength: bigint) => {
    if (groupLength > 0n) offsets.push({ groupOpcode, groupStart, groupLength });
  };
  const headGroup = (groupOpcode: Opcode, write: () => void) => {
    const groupStart = dataEndOffset + BigInt(head.length);
    write();
    group(groupOpcode, groupStart, dataEndOffset + BigInt(head.length) - groupStart);
  };
  headGroup(Opcode.SCHEMA, () => contents.schemas.forEach((schema) => head.writeSchema(schema)));
  headGroup(Opcode.CHANNEL, () => contents.channels.forEach((channel) => head.writeChannel(channel)));
  headGroup(Opcode.STATISTICS, () => head.writeStatistics(contents.statistics));
  const chunkIndexStart = dataEndOffset + BigInt(head.length);
  group(Opcode.CHUNK_INDEX, chunkIndexStart, BigInt(contents.chunkIndexRecords.byteLength));
  const summaryOffsetStart = chunkIndexStart + BigInt(contents.chunkIndexRecords.byteLength);
  const tail = new McapRecordBuilder();
  for (const offset of offsets) tail.writeSummaryOffset(offset);

  const footerPrefix = new DataView(new ArrayBuffer(1 + 8 + 8 + 8));
  footerPrefix.setUint8(0, Opcode.FOOTER);
  footerPrefix.setBigUint64(1, 8n + 8n + 4n, true);
  footerPrefix.setBigUint64(9, summaryStart, true);
  footerPrefix.setBigUint64(17, summaryOffsetStart, true);
  // The summary's CRC runs from its start (after DataEnd) through the footer's fields before the CRC.
  let summaryCrc = crc32(head.buffer.subarray(DATA_END_BYTES));
  summaryCrc = crc32(contents.chunkIndexRecords, summaryCrc);
  summaryCrc = crc32(tail.buffer, summaryCrc);
  summaryCrc = crc32(new Uint8Array(footerPrefix.buffer), summaryCrc);
  tail.writeFooter({ summaryStart, summaryOffsetStart, summaryCrc });
  tail.writeMagic();
  return [head.buffer, contents.chunkIndexRecords, tail.buffer];
}
