// Saved weights (world-model and policy checkpoints) are files that may be cut short by a crash,
// damaged on disk or edited by hand. A small tensor file is damaged at generated places, or its JSON
// header rewritten with fields replaced, removed or added (the body and its checksum left whole, so
// the header's own checks are reached). readTensorFile returns tensors that lie inside the body, or
// throws a CheckpointError that names the file; nothing else escapes.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fuzzAsync, mutatedJson } from '../../test/support/fuzz.ts';
import { CheckpointError, readTensorFile, writeTensorFile, type TensorFileKind } from './checkpointFile.ts';

const MAGIC = 'REINS-FUZZ-TENSORS\n';
const KIND: TensorFileKind = { magic: MAGIC, kind: 'fuzz checkpoint', format: 1, groups: ['weights', 'moments'] };
const HEADER = z.object({ format: z.literal(1), version: z.string().min(1), steps: z.number().int().min(0) });
const RUNTIME_ERROR = /Cannot read propert|Cannot convert|is not a function|is not iterable|is not defined|undefined is not|null is not/;

let folder: string;
let original: Buffer;
let header: unknown;
let headerEnd: number;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-checkpoint-fuzz-'));
  const path = join(folder, 'original.bin');
  const weights = [
    { name: 'w', shape: [2, 3], values: Float32Array.from([1, 2, 3, 4, 5, 6]) },
    { name: 'b', shape: [3], values: Float32Array.from([0.5, -0.5, 0]) },
  ];
  await writeTensorFile(path, MAGIC, { format: 1, version: 'v1', steps: 7 }, { weights, moments: [{ name: 'm', shape: [1], values: Float32Array.of(9) }] });
  original = await readFile(path);
  headerEnd = original.indexOf(0x0a, MAGIC.length);
  header = JSON.parse(original.subarray(MAGIC.length, headerEnd).toString('utf8'));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const at = fc.integer({ min: 0, max: 999_999 }).map((millionths) => millionths / 1_000_000);
const byteDamage = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at, bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('insert' as const), at, bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at }),
);

type ByteDamage = typeof byteDamage extends fc.Arbitrary<infer D> ? D : never;
type FileSpec = { kind: 'bytes'; damage: ByteDamage } | { kind: 'header'; header: unknown };

function fileBytes(spec: FileSpec): Buffer {
  if (spec.kind === 'header') {
    // The rewritten header keeps the body whole behind it, so the checksum still matches.
    return Buffer.concat([Buffer.from(MAGIC), Buffer.from(`${JSON.stringify(spec.header) ?? ''}\n`), original.subarray(headerEnd + 1)]);
  }
  const { damage } = spec;
  const offset = Math.floor(damage.at * original.length);
  if (damage.kind === 'truncate') return original.subarray(0, offset);
  if (damage.kind === 'insert') return Buffer.concat([original.subarray(0, offset), damage.bytes, original.subarray(offset)]);
  const bytes = Buffer.from(original);
  bytes[offset]! ^= 1 << damage.bit;
  return bytes;
}

describe('tensor files under generated damage', () => {
  it('read back tensors inside the body, or refuse naming the file', async () => {
    const path = join(folder, 'damaged.bin');
    const spec: fc.Arbitrary<FileSpec> = fc.oneof(
      byteDamage.map((damage) => ({ kind: 'bytes' as const, damage })),
      fc.constant(null).chain(() => mutatedJson(header).map((mutated) => ({ kind: 'header' as const, header: mutated }))),
      fc.jsonValue({ maxDepth: 2 }).map((value) => ({ kind: 'header' as const, header: value })),
    );
    await fuzzAsync(
      [spec],
      async (file) => {
        await writeFile(path, fileBytes(file));
        let result: Awaited<ReturnType<typeof readTensorFile<typeof HEADER>>>;
        try {
          result = await readTensorFile(path, KIND, HEADER);
        } catch (error) {
          expect(error).toBeInstanceOf(CheckpointError);
          expect((error as Error).message).toContain(path);
          expect((error as Error).message).not.toMatch(RUNTIME_ERROR);
          return;
        }
        for (const group of KIND.groups) {
          for (const tensor of result.groups[group]!) {
            expect(tensor.values.length).toBe(tensor.shape.reduce((product, side) => product * side, 1));
          }
        }
      },
      { runs: 500 },
    );
  });
});
