// A log opened for review may have been cut, damaged on disk or written by something else. A small
// log from the Recorder is damaged at generated places (bits flipped, bytes overwritten, inserted or
// removed, the file cut short) and opened: openReviewLog either refuses it with an Error that says why,
// or opens it and reads every message to the end without throwing, in bounded time, saying in words
// what it lost. The strict RecordingReader may refuse or fail, but only with an Error in words.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzAsync } from '../../test/support/fuzz.ts';
import type { Received, RobotMessage } from '../core/messages.ts';
import { Recorder } from './recorder.ts';
import { RecordingReader } from './recordingReader.ts';
import { COMMAND_SENT_CHANNEL } from './reinsEvents.ts';
import { openReviewLog } from './reviewLog.ts';

const T0_MS = 1_700_000_000_000;
const RUNTIME_ERROR = /Cannot read propert|Cannot convert|is not a function|is not iterable|is not defined|undefined is not|null is not|Maximum call stack/;

let folder: string;
let original: Uint8Array;

function scan(atMs: number, i: number): Received<RobotMessage> {
  const rangesM = new Float32Array(32).map((_, beam) => 1 + ((beam + i) % 7));
  return {
    topic: '/scan',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: { kind: 'LaserScan', frameId: 'laser', angleMinRad: -1, angleMaxRad: 1, angleIncrementRad: 0.06, rangeMinM: 0.1, rangeMaxM: 10, rangesM },
  };
}

function image(atMs: number, i: number): Received<RobotMessage> {
  const data = new Uint8Array(8 * 6 * 3).map((_, index) => (index * 31 + i * 17) & 0xff);
  return {
    topic: '/camera/image_raw',
    receiveTimeMs: atMs,
    sourceTimeMs: atMs,
    msg: { kind: 'Image', frameId: 'camera', width: 8, height: 6, encoding: 'rgb8', step: 24, data },
  };
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-review-fuzz-'));
  const path = join(folder, 'original.mcap');
  const recorder = await Recorder.open({ path, chunkBytes: 1024 });
  for (let i = 0; i < 16; i++) {
    const atMs = T0_MS + i * 100;
    recorder.record(i % 2 === 0 ? scan(atMs, i) : image(atMs, i));
    recorder.recordEvent(COMMAND_SENT_CHANNEL, atMs + 20, {
      driver: 'operator',
      command: { linearMps: 0.1, angularRadps: 0 },
      requested: { linearMps: 0.1, angularRadps: 0 },
      clipped: false,
      delivered: true,
      atMs: atMs + 20,
    });
  }
  await recorder.close();
  original = new Uint8Array(await readFile(path));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

type Damage =
  | { kind: 'flip'; at: number; bit: number }
  | { kind: 'overwrite'; at: number; bytes: Uint8Array }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'remove'; at: number; count: number }
  | { kind: 'truncate'; at: number };

/** Offsets as fractions of the file, so one generated damage fits a log of any size. */
const at = fc.integer({ min: 0, max: 999_999 }).map((millionths) => millionths / 1_000_000);
const damage: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('flip' as const), at, bit: fc.integer({ min: 0, max: 7 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('overwrite' as const),
      at,
      bytes: fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.constant(new Uint8Array(8).fill(0xff)), fc.constant(new Uint8Array(8))),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('insert' as const), at, bytes: fc.uint8Array({ minLength: 1, maxLength: 16 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), at, count: fc.integer({ min: 1, max: 32 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at }) },
);

function damaged(bytes: Uint8Array, damages: readonly Damage[]): Uint8Array {
  let out = bytes.slice();
  for (const change of damages) {
    const offset = Math.min(out.length, Math.floor(change.at * out.length));
    switch (change.kind) {
      case 'flip':
        if (offset < out.length) out[offset]! ^= 1 << change.bit;
        break;
      case 'overwrite':
        out.set(change.bytes.subarray(0, out.length - offset), offset);
        break;
      case 'insert':
        out = Uint8Array.from([...out.subarray(0, offset), ...change.bytes, ...out.subarray(offset)]);
        break;
      case 'remove':
        out = Uint8Array.from([...out.subarray(0, offset), ...out.subarray(offset + change.count)]);
        break;
      case 'truncate':
        out = out.slice(0, offset);
        break;
    }
  }
  return out;
}

function expectClearError(error: unknown): void {
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message.length).toBeGreaterThan(10);
  expect((error as Error).message).not.toMatch(RUNTIME_ERROR);
}

describe('review logs under generated damage', () => {
  it('opens and reads to the end, or refuses with a reason; never throws while reading', async () => {
    const path = join(folder, 'damaged.mcap');
    await fuzzAsync(
      [fc.array(damage, { minLength: 1, maxLength: 3 })],
      async (damages) => {
        await writeFile(path, damaged(original, damages));
        let log: Awaited<ReturnType<typeof openReviewLog>>;
        try {
          log = await openReviewLog(path);
        } catch (error) {
          expectClearError(error);
          return;
        }
        try {
          let count = 0;
          for await (const message of log.messages()) {
            expect(typeof message.topic).toBe('string');
            count++;
          }
          expect(count).toBeLessThanOrEqual(64);
          if (log.summary.topics.length > 0) await log.latestAt(log.summary.topics[0]!.topic, log.endMs);
          for (const problem of log.problems) {
            expect(problem.length).toBeGreaterThan(10);
            expect(problem).not.toMatch(RUNTIME_ERROR);
          }
        } finally {
          await log.close();
        }
      },
      { runs: 200, maxCaseMs: 5000 },
    );
  });

  it('the strict reader refuses or fails only with an Error in words', async () => {
    const path = join(folder, 'damaged-strict.mcap');
    await fuzzAsync(
      [fc.array(damage, { minLength: 1, maxLength: 3 })],
      async (damages) => {
        await writeFile(path, damaged(original, damages));
        let reader: RecordingReader;
        try {
          reader = await RecordingReader.open(path);
        } catch (error) {
          expectClearError(error);
          return;
        }
        try {
          for await (const message of reader.messages()) expect(typeof message.topic).toBe('string');
        } catch (error) {
          expectClearError(error);
        } finally {
          await reader.close();
        }
      },
      { runs: 100, maxCaseMs: 5000 },
    );
  });
});
