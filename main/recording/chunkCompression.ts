// Per-chunk compression for the MCAP writer: zstd at level 1, except where it buys little. Scans,
// odometry and events shrink by half or more; raw camera frames by about a quarter (a real sensor's
// noise, the simulated robot's textured walls). Compressing 640 × 480 frames at 30 Hz took 45 % of a
// core at level 3 and still 14 % at level 1 (zstd-wasm, one EPYC core). So a chunk that compresses
// by less than MIN_SAVING is stored as is, and after such a chunk the next several are not even
// tried; then zstd is tried again, as the scene or the streams may change. The disk takes a third
// more bytes of camera frames; the robot's computer keeps its CPU (`reins bench recording`).
// Readers decompress here too: zstd with the same module, and lz4, which other writers choose
// (the MCAP specification names both), with @mcap/support's WebAssembly build of the lz4 library.
import { compress, decompress, init } from '@bokuweb/zstd-wasm';
import type { McapTypes } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';

const MIN_SAVING = 1 / 3;
const CHUNKS_SKIPPED_AFTER_A_POOR_ONE = 16;
export const ZSTD_LEVEL = 1;

let ready: Promise<void> | undefined;

/** Loads the zstd WebAssembly module once; call before the first chunk is compressed. */
export function zstdReady(): Promise<void> {
  ready ??= init();
  return ready;
}

/**
 * The chunk decompressors for @mcap/core's readers: zstd once `zstdReady()` has resolved, lz4 once
 * `decompressorsReady()` has (a reader of Reins' own logs needs only the first).
 */
export const DECOMPRESS_HANDLERS: McapTypes.DecompressHandlers = {
  zstd: (buffer) => decompress(buffer),
};

let supportHandlers: ReturnType<typeof loadDecompressHandlers> | undefined;

/** @mcap/support's WebAssembly decompressors (lz4, bz2, …), loaded once for every reader. */
export function supportDecompressors(): ReturnType<typeof loadDecompressHandlers> {
  supportHandlers ??= loadDecompressHandlers();
  return supportHandlers;
}

/** Loads every decompressor a reader of any MCAP log needs, once; call before opening one. */
export async function decompressorsReady(): Promise<void> {
  const [, handlers] = await Promise.all([zstdReady(), supportDecompressors()]);
  DECOMPRESS_HANDLERS.lz4 ??= handlers.lz4!;
}

export interface CompressionStats {
  chunks: number;
  zstdChunks: number;
  rawChunks: number;
  uncompressedBytes: number;
  storedBytes: number;
}

export class ChunkCompressor {
  readonly stats: CompressionStats = { chunks: 0, zstdChunks: 0, rawChunks: 0, uncompressedBytes: 0, storedBytes: 0 };
  private skipRemaining = 0;

  /** For McapWriter's `compressChunk`; the zstd module must be ready (`zstdReady`). */
  readonly compressChunk = (chunk: Uint8Array): { compression: string; compressedData: Uint8Array } => {
    this.stats.chunks++;
    this.stats.uncompressedBytes += chunk.byteLength;
    if (this.skipRemaining > 0) {
      this.skipRemaining--;
      return this.raw(chunk);
    }
    const compressed = compress(chunk, ZSTD_LEVEL);
    if (compressed.byteLength > chunk.byteLength * (1 - MIN_SAVING)) {
      this.skipRemaining = CHUNKS_SKIPPED_AFTER_A_POOR_ONE;
      return this.raw(chunk);
    }
    this.stats.zstdChunks++;
    this.stats.storedBytes += compressed.byteLength;
    return { compression: 'zstd', compressedData: compressed };
  };

  private raw(chunk: Uint8Array) {
    this.stats.rawChunks++;
    this.stats.storedBytes += chunk.byteLength;
    return { compression: '', compressedData: chunk };
  }
}
