import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChunkCompressor, ChunkSealer, DECOMPRESS_HANDLERS, zstdReady } from './chunkCompression.ts';

/** Bytes zstd shrinks well (a scan's slow ramps), and bytes it cannot (a sensor's noise). */
function ramps(bytes: number): Uint8Array {
  return Uint8Array.from({ length: bytes }, (_, i) => (i >> 6) & 0xff);
}
function noise(bytes: number, seed: number): Uint8Array {
  let state = seed;
  return Uint8Array.from({ length: bytes }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 24;
  });
}

let folder: string;
beforeAll(async () => {
  await zstdReady();
  folder = await mkdtemp(join(tmpdir(), 'reins-seal-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe('ChunkCompressor', () => {
  it('seals a copy of the records on its thread: zstd that decompresses to them, and their checksum', async () => {
    const sealer = new ChunkSealer();
    const compressor = new ChunkCompressor(sealer);
    const records = ramps(256 * 1024);
    const original = records.slice();
    const sealing = compressor.seal(records);
    records.fill(7); // the chunk's buffer is reused as soon as seal() has been called
    const sealed = await sealing;
    expect(sealed.compression).toBe('zstd');
    expect(sealed.data.byteLength).toBeLessThan(original.byteLength / 2);
    expect(DECOMPRESS_HANDLERS.zstd!(sealed.data, BigInt(original.byteLength))).toEqual(original);
    expect(sealed.uncompressedCrc).toBe(crc32(original));
    expect(compressor.stats).toMatchObject({ chunks: 1, zstdChunks: 1, rawChunks: 0, sealedInline: 0 });
    await sealer.close();
  });

  it('stores a chunk zstd barely shrinks as it is, and does not try the next ones', async () => {
    const sealer = new ChunkSealer();
    const compressor = new ChunkCompressor(sealer);
    const first = noise(64 * 1024, 1);
    const sealed = await compressor.seal(first);
    expect(sealed).toMatchObject({ compression: '', uncompressedCrc: crc32(first) });
    expect(sealed.data).toEqual(first);
    // Compressible, but within the chunks skipped after a poor one: stored as is, checksummed all the same.
    const next = ramps(64 * 1024);
    expect(await compressor.seal(next)).toMatchObject({ compression: '', uncompressedCrc: crc32(next) });
    expect(compressor.stats).toMatchObject({ chunks: 2, zstdChunks: 0, rawChunks: 2 });
    await sealer.close();
  });

  it('seals on the calling thread when the sealing thread cannot run, and says why', async () => {
    const broken = join(folder, 'brokenSealer.mjs');
    await writeFile(broken, "throw new Error('no zstd here');\n");
    const sealer = new ChunkSealer(pathToFileURL(broken));
    await sealer.warmUp(); // resolves all the same: a recorder still opens
    const compressor = new ChunkCompressor(sealer);
    for (let chunk = 0; chunk < 5; chunk++) {
      const records = ramps(32 * 1024 + chunk);
      const sealed = await compressor.seal(records);
      expect(sealed.compression).toBe('zstd');
      expect(DECOMPRESS_HANDLERS.zstd!(sealed.data, BigInt(records.byteLength))).toEqual(records);
      expect(sealed.uncompressedCrc).toBe(crc32(records));
    }
    expect(compressor.stats).toMatchObject({ chunks: 5, zstdChunks: 5, sealedInline: 5 });
    expect(compressor.sealerProblem).toMatch(/no zstd here/);
  });

  it('starts a new sealing thread after one is stopped, and the chunk in flight is sealed all the same', async () => {
    const sealer = new ChunkSealer();
    const compressor = new ChunkCompressor(sealer);
    const records = ramps(128 * 1024);
    const inFlight = compressor.seal(records);
    await sealer.close();
    const sealed = await inFlight;
    expect(DECOMPRESS_HANDLERS.zstd!(sealed.data, BigInt(records.byteLength))).toEqual(records);
    expect(compressor.stats.sealedInline).toBe(1);
    const after = await compressor.seal(records);
    expect(after.compression).toBe('zstd');
    expect(compressor.stats.sealedInline).toBe(1);
    expect(compressor.sealerProblem).toBeUndefined();
    await sealer.close();
  });
});
