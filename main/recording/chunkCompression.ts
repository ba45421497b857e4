// Per-chunk compression for the MCAP writer: zstd at level 1, except where it buys little. Scans,
// odometry and events shrink by half or more; raw camera frames by about a quarter (a real sensor's
// noise, the simulated robot's textured walls). Compressing 640 × 480 frames at 30 Hz took 45 % of a
// core at level 3 and still 14 % at level 1 (zstd-wasm, one EPYC core). So a chunk that compresses
// by less than MIN_SAVING is stored as is, and after such a chunk the next several are not even
// tried; then zstd is tried again, as the scene or the streams may change. The disk takes a third
// more bytes of camera frames; the robot's computer keeps its CPU (`reins bench recording`).
// The checksum and zstd run on a thread of their own (ChunkSealer), off the loop's thread.
// Readers decompress here too: zstd with the same module, and lz4, which other writers choose
// (the MCAP specification names both), with @mcap/support's WebAssembly build of the lz4 library.
import { compress, decompress, init } from '@bokuweb/zstd-wasm';
import type { McapTypes } from '@mcap/core';
import { loadDecompressHandlers } from '@mcap/support';
import { Worker } from 'node:worker_threads';
import { crc32 } from 'node:zlib';

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
  /** Chunks sealed on the calling thread because the sealing thread had failed (each failure logged once in `sealerProblem`). */
  sealedInline: number;
}

/** A chunk ready to write: its records as stored, how, and the checksum of the records uncompressed. */
export interface SealedChunk {
  compression: '' | 'zstd';
  data: Uint8Array;
  uncompressedCrc: number;
}

type SealReply = { id: number; crc: number; records: Uint8Array; compressed?: Uint8Array } | { id: number; error: string };
type FromSealWorker = SealReply | { ready: true };

const SEAL_WORKER = new URL('./chunkSealWorker.mjs', import.meta.url);
/** Starts of the sealing thread a sealer tries; after that every chunk is sealed on its caller's thread. */
const MAX_SEALER_STARTS = 3;

/**
 * Seals chunks on a thread of its own (chunkSealWorker.mjs), so the checksum and zstd of a megabyte
 * of records (several ms each) never hold up a tick on the loop's thread. The records are copied
 * once to go there and come back without a copy. The thread starts on the first chunk; while no chunk
 * is in flight it does not keep the process alive.
 */
export class ChunkSealer {
  private worker: Worker | undefined;
  private started: Promise<void> | undefined;
  private readonly inFlight = new Map<number, { resolve: (reply: SealReply) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private starts = 0;
  private lastFailure: Error | undefined;

  constructor(private readonly workerUrl: URL = SEAL_WORKER) {}

  /**
   * Starts the thread and waits until its zstd module is loaded, so the first chunks do not wait on
   * it while the recording queue fills. Resolves also when it fails: chunks are then sealed inline.
   */
  async warmUp(): Promise<void> {
    if (this.worker === undefined && this.starts < MAX_SEALER_STARTS) this.start();
    await this.started?.catch(() => undefined);
  }

  /** Seals a copy of `records` (the caller may reuse them at once); rejects when the thread fails. */
  seal(records: Uint8Array, level: number | undefined): Promise<SealReply> {
    if (this.worker === undefined && this.starts >= MAX_SEALER_STARTS) return Promise.reject(this.lastFailure!);
    const worker = this.worker ?? this.start();
    const copy = records.slice();
    const id = this.nextId++;
    if (this.inFlight.size === 0) worker.ref();
    return new Promise((resolve, reject) => {
      this.inFlight.set(id, { resolve, reject });
      worker.postMessage({ id, records: copy, level }, [copy.buffer]);
    });
  }

  /** Stops the thread; chunks in flight are refused. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    this.fail(worker, new Error('the chunk sealer was closed'));
    await worker.terminate();
  }

  private start(): Worker {
    this.starts++;
    const worker = new Worker(this.workerUrl);
    worker.unref();
    let loaded: () => void = () => undefined;
    let failed: (error: Error) => void = () => undefined;
    this.started = new Promise<void>((resolve, reject) => {
      loaded = resolve;
      failed = reject;
    });
    this.started.catch(() => undefined); // told through the chunks' seals; no one need wait on it
    worker.on('message', (message: FromSealWorker) => {
      if ('ready' in message) return loaded();
      const waiting = this.inFlight.get(message.id);
      if (waiting === undefined) return;
      this.inFlight.delete(message.id);
      if (this.inFlight.size === 0) worker.unref();
      waiting.resolve(message);
    });
    const onFailure = (error: Error) => {
      failed(error);
      this.fail(worker, error);
    };
    worker.on('error', onFailure);
    worker.on('exit', (code) => onFailure(new Error(`the chunk sealing thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private fail(worker: Worker, error: Error): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    this.lastFailure = error;
    const waiting = [...this.inFlight.values()];
    this.inFlight.clear();
    for (const { reject } of waiting) reject(error);
  }
}

let sharedSealer: ChunkSealer | undefined;

/** The process's one sealing thread, shared by every file being written. */
export function sharedChunkSealer(): ChunkSealer {
  sharedSealer ??= new ChunkSealer();
  return sharedSealer;
}

export class ChunkCompressor {
  readonly stats: CompressionStats = { chunks: 0, zstdChunks: 0, rawChunks: 0, uncompressedBytes: 0, storedBytes: 0, sealedInline: 0 };
  /** Why chunks were last sealed on the calling thread; undefined while the sealing thread works. */
  sealerProblem: string | undefined;
  private skipRemaining = 0;

  constructor(private readonly sealer: ChunkSealer = sharedChunkSealer()) {}

  /**
   * Seals a chunk's records off the calling thread: zstd unless it is skipping, stored as is when
   * zstd saves too little. If the sealing thread fails, the chunk is sealed here instead (the zstd
   * module must be ready, `zstdReady`): a recording is never lost to its compression.
   */
  async seal(records: Uint8Array): Promise<SealedChunk> {
    this.stats.chunks++;
    this.stats.uncompressedBytes += records.byteLength;
    const tryZstd = this.skipRemaining === 0;
    if (!tryZstd) this.skipRemaining--;
    let reply: SealReply;
    try {
      reply = await this.sealer.seal(records, tryZstd ? ZSTD_LEVEL : undefined);
    } catch (error) {
      reply = { id: -1, error: (error as Error).message };
    }
    if ('error' in reply) {
      this.sealerProblem = reply.error;
      this.stats.sealedInline++;
      return this.choose(records, tryZstd ? compress(records, ZSTD_LEVEL) : undefined, crc32(records));
    }
    this.sealerProblem = undefined;
    return this.choose(reply.records, reply.compressed, reply.crc);
  }

  private choose(records: Uint8Array, compressed: Uint8Array | undefined, uncompressedCrc: number): SealedChunk {
    if (compressed !== undefined && compressed.byteLength > records.byteLength * (1 - MIN_SAVING)) {
      this.skipRemaining = CHUNKS_SKIPPED_AFTER_A_POOR_ONE;
      compressed = undefined;
    }
    if (compressed === undefined) {
      this.stats.rawChunks++;
      this.stats.storedBytes += records.byteLength;
      return { compression: '', data: records, uncompressedCrc };
    }
    this.stats.zstdChunks++;
    this.stats.storedBytes += compressed.byteLength;
    return { compression: 'zstd', data: compressed, uncompressedCrc };
  }
}
