// The recorder's chunk sealing on a thread of its own (chunkCompression.ts' ChunkSealer): the checksum
// of a chunk's records, and their zstd frame when asked. Plain JavaScript, no TypeScript body: it needs
// nothing of the core but the zstd module, so it starts without tsx's loader.
import { parentPort } from 'node:worker_threads';
import { crc32 } from 'node:zlib';
import { compress, init } from '@bokuweb/zstd-wasm';

await init();
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, records, level }) => {
  try {
    const crc = crc32(records);
    if (level === undefined) {
      parentPort.postMessage({ id, crc, records }, [records.buffer]);
      return;
    }
    const compressed = compress(records, level);
    parentPort.postMessage({ id, crc, records, compressed }, [records.buffer, compressed.buffer]);
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
