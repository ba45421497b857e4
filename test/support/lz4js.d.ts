// lz4js ships no types: the two calls the tests make of it (LZ4 frames, as MCAP's lz4 chunks hold).
declare module 'lz4js' {
  export function compress(source: Uint8Array, maxSize?: number): Uint8Array;
  export function decompress(source: Uint8Array, maxSize?: number): Uint8Array;
}
