// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, not reflected, no final xor): the frame check of
// PROTOCOL.md §1. The firmware computes the same with avr-libc's _crc_xmodem_update from 0xFFFF.

export const CRC16_INITIAL = 0xffff;

const TABLE: Uint16Array = buildTable();

function buildTable(): Uint16Array {
  const table = new Uint16Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[byte] = crc;
  }
  return table;
}

/** The CRC of `bytes`, continuing from `crc` (so a frame can be checked in pieces). */
export function crc16CcittFalse(bytes: Uint8Array, crc: number = CRC16_INITIAL): number {
  let value = crc & 0xffff;
  for (const byte of bytes) value = ((value << 8) & 0xffff) ^ TABLE[((value >> 8) ^ byte) & 0xff]!;
  return value;
}
