// A large log written the way the recorder writes one (EntryEncoder into McapFile: 1 MiB chunks, zstd
// tried and dropped where it buys little, message indexes, summary): a 640 × 480 rgb8 camera at
// 30 Hz, odometry at 30 Hz driving a circle and a 360-beam scan at 10 Hz, until the file reaches a
// size. The camera's bytes are random (a 64 MiB pool from the system's generator, each frame a
// different window of it), so the file is as big on disk as it says and does not compress away.
// `withoutSummary` cuts the same file where its data section ends, as a crash leaves a log.
import { randomFillSync } from 'node:crypto';
import { truncate } from 'node:fs/promises';
import type { Image, LaserScan, Odometry, Received } from '../../main/core/messages.ts';
import { zstdReady } from '../../main/recording/chunkCompression.ts';
import { EntryEncoder } from '../../main/recording/entryEncoding.ts';
import { McapFile } from '../../main/recording/mcapFile.ts';

export const BIG_LOG_T0_MS = 1_700_000_000_000;
export const CAMERA = { topic: '/camera/image_raw', widthPx: 640, heightPx: 480, rateHz: 30 } as const;
const FRAME_BYTES = CAMERA.widthPx * CAMERA.heightPx * 3;
const POOL_BYTES = 64 * 1024 ** 2;
const CIRCLE_RADIUS_M = 2;
const SPEED_MPS = 0.5;

export interface BigLog {
  path: string;
  /** Where the data section ends: cutting the file here leaves a log without a summary. */
  dataEndBytes: number;
  sizeBytes: number;
  cameraFrames: number;
  messages: number;
  startMs: number;
  endMs: number;
}

export async function writeBigLog(path: string, targetBytes: number): Promise<BigLog> {
  await zstdReady();
  const pool = new Uint8Array(POOL_BYTES);
  randomFillSync(pool);
  const file = await McapFile.create(path);
  const encoder = new EntryEncoder();
  const rangesM = new Float32Array(360);
  let messages = 0;
  let frame = 0;
  let lastMs = BIG_LOG_T0_MS;
  const add = async (received: Received) => {
    const entry = encoder.encode({ kind: 'sensor', received });
    await file.add(entry.channel, entry.logTimeNs, entry.publishTimeNs, entry.data);
    lastMs = received.receiveTimeMs;
    messages++;
  };
  for (; file.sizeBytes < targetBytes; frame++) {
    const timeMs = BIG_LOG_T0_MS + (frame * 1000) / CAMERA.rateHz;
    // Windows a prime stride apart: no two frames of a 5 GiB log share their bytes at the same place.
    const at = (frame * 1_048_573) % (POOL_BYTES - FRAME_BYTES);
    const image: Image = {
      kind: 'Image',
      frameId: 'camera',
      width: CAMERA.widthPx,
      height: CAMERA.heightPx,
      encoding: 'rgb8',
      step: CAMERA.widthPx * 3,
      data: pool.subarray(at, at + FRAME_BYTES),
    };
    await add({ topic: CAMERA.topic, receiveTimeMs: timeMs, sourceTimeMs: timeMs - 5, msg: image });
    const angleRad = ((timeMs - BIG_LOG_T0_MS) / 1000) * (SPEED_MPS / CIRCLE_RADIUS_M);
    const odometry: Odometry = {
      kind: 'Odometry',
      frameId: 'odom',
      childFrameId: 'base_link',
      odomFromBaseXM: CIRCLE_RADIUS_M * Math.sin(angleRad),
      odomFromBaseYM: CIRCLE_RADIUS_M * (1 - Math.cos(angleRad)),
      odomFromBaseYawRad: angleRad,
      linearMps: SPEED_MPS,
      angularRadps: SPEED_MPS / CIRCLE_RADIUS_M,
    };
    await add({ topic: '/odom', receiveTimeMs: timeMs + 1, sourceTimeMs: timeMs, msg: odometry });
    if (frame % 3 === 0) {
      for (let beam = 0; beam < rangesM.length; beam++) rangesM[beam] = 1 + pool[(at + beam) % POOL_BYTES]! / 32;
      const scan: LaserScan = {
        kind: 'LaserScan',
        frameId: 'laser',
        angleMinRad: -Math.PI,
        angleMaxRad: Math.PI,
        angleIncrementRad: (2 * Math.PI) / rangesM.length,
        rangeMinM: 0.1,
        rangeMaxM: 10,
        rangesM,
      };
      await add({ topic: '/scan', receiveTimeMs: timeMs + 2, sourceTimeMs: timeMs, msg: scan });
    }
  }
  await file.finishChunk();
  const dataEndBytes = file.sizeBytes;
  await file.close();
  return { path, dataEndBytes, sizeBytes: file.sizeBytes, cameraFrames: frame, messages, startMs: BIG_LOG_T0_MS, endMs: lastMs };
}

/** Cuts the log where its data section ends: the summary and footer are gone, as after a crash. */
export async function withoutSummary(log: BigLog): Promise<BigLog> {
  await truncate(log.path, log.dataEndBytes);
  return { ...log, sizeBytes: log.dataEndBytes };
}
