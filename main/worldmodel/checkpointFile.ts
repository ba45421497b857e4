// A world-model checkpoint on disk: a magic line, a JSON header (format, configuration, the encoder
// version whose embeddings it learned, the training step, each tensor's name, shape and place, and
// the SHA-256 of the body), then the float32 body. Written to a temporary name and renamed, so a crash
// leaves the previous checkpoint whole; read back only when every check passes.
import { createHash } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { z } from 'zod';
import { worldModelConfigSchema, type WorldModelConfig } from './worldModelConfig.ts';

const MAGIC = 'REINS-WORLD-MODEL\n';
export const CHECKPOINT_FORMAT = 1;

const tensorEntrySchema = z.object({
  name: z.string().min(1),
  shape: z.array(z.number().int().min(1)),
  /** In float32 values from the start of the body. */
  offset: z.number().int().min(0),
});

const headerSchema = z.object({
  format: z.literal(CHECKPOINT_FORMAT),
  version: z.string().min(1),
  config: worldModelConfigSchema,
  encoderVersion: z.string().min(1),
  trainSteps: z.number().int().min(0),
  createdAtMs: z.number(),
  weights: z.array(tensorEntrySchema),
  /** Adam's moments, in weight order; empty when saved without them. */
  optimizer: z.array(tensorEntrySchema),
  optimizerIterations: z.number().int().min(0),
  bodySha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export interface NamedArray {
  name: string;
  shape: number[];
  values: Float32Array;
}

export interface WorldModelCheckpoint {
  version: string;
  config: WorldModelConfig;
  encoderVersion: string;
  trainSteps: number;
  createdAtMs: number;
  weights: NamedArray[];
  optimizer: NamedArray[];
  optimizerIterations: number;
}

/** A checkpoint that cannot be used, and why, in words for the operator. */
export class CheckpointError extends Error {
  override readonly name = 'CheckpointError';
}

export async function writeCheckpoint(path: string, checkpoint: WorldModelCheckpoint): Promise<void> {
  const { weights, optimizer, ...rest } = checkpoint;
  await writeTensorFile(path, MAGIC, { format: CHECKPOINT_FORMAT, ...rest }, { weights, optimizer });
}

/** Reads and checks a checkpoint; throws a CheckpointError that says what is wrong with it. */
export async function readCheckpoint(path: string): Promise<WorldModelCheckpoint> {
  const { header, groups } = await readTensorFile(
    path,
    { magic: MAGIC, kind: 'world-model checkpoint', format: CHECKPOINT_FORMAT, groups: ['weights', 'optimizer'] },
    headerSchema,
  );
  return {
    version: header.version,
    config: header.config,
    encoderVersion: header.encoderVersion,
    trainSteps: header.trainSteps,
    createdAtMs: header.createdAtMs,
    weights: groups.weights!,
    optimizer: groups.optimizer!,
    optimizerIterations: header.optimizerIterations,
  };
}

/**
 * Writes named float32 arrays in groups behind a magic line and a JSON header (the caller's fields,
 * each group's entries, the body's SHA-256), to a temporary name then renamed: a crash leaves the
 * previous file whole.
 */
export async function writeTensorFile(
  path: string,
  magic: string,
  fields: Record<string, unknown>,
  groups: Record<string, readonly NamedArray[]>,
): Promise<void> {
  let offset = 0;
  const place = (array: NamedArray) => {
    const size = array.shape.reduce((product, side) => product * side, 1);
    if (size !== array.values.length)
      throw new RangeError(`checkpoint tensor ${array.name}: shape [${array.shape.join(', ')}] holds ${size} values, got ${array.values.length}`);
    const entry = { name: array.name, shape: array.shape, offset };
    offset += size;
    return entry;
  };
  const entries = Object.fromEntries(Object.entries(groups).map(([group, arrays]) => [group, arrays.map(place)]));
  const body = new Float32Array(offset);
  for (const [group, arrays] of Object.entries(groups)) arrays.forEach((array, index) => body.set(array.values, entries[group]![index]!.offset));
  const bodyBytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const header = { ...fields, ...entries, bodySha256: createHash('sha256').update(bodyBytes).digest('hex') };
  const headerBytes = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  // The body starts on a 4-byte boundary so it can be read as float32 in place.
  const padding = Buffer.alloc((4 - ((magic.length + headerBytes.length) % 4)) % 4, ' ');
  const temporary = `${path}.partial-${process.pid}`;
  const file = await open(temporary, 'w');
  try {
    await file.writev([Buffer.from(magic, 'utf8'), padding, headerBytes, bodyBytes]);
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  await rename(temporary, path);
}

export interface TensorFileKind {
  magic: string;
  /** What the file is, in the operator's words ("world-model checkpoint"). */
  kind: string;
  format: number;
  groups: readonly string[];
}

/** Reads and checks a tensor file; throws a CheckpointError that says what is wrong with it. */
export async function readTensorFile<H extends z.ZodTypeAny>(
  path: string,
  expected: TensorFileKind,
  schema: H,
): Promise<{ header: z.infer<H>; groups: Record<string, NamedArray[]> }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CheckpointError(`cannot read ${expected.kind} ${path}: ${(error as Error).message}`);
  }
  if (bytes.subarray(0, expected.magic.length).toString('utf8') !== expected.magic) throw new CheckpointError(`${path} is not a Reins ${expected.kind}`);
  const headerEnd = bytes.indexOf(0x0a, expected.magic.length);
  if (headerEnd < 0) throw new CheckpointError(`${path}: the ${expected.kind}'s header is cut off`);
  let header: z.infer<H>;
  let entries: Record<string, Array<z.infer<typeof tensorEntrySchema>>>;
  try {
    const parsed: unknown = JSON.parse(bytes.subarray(expected.magic.length, headerEnd).toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new CheckpointError(`${path}: the ${expected.kind}'s header is not a JSON object`);
    const format = (parsed as { format?: unknown }).format;
    if (format !== expected.format)
      throw new CheckpointError(`${path}: ${expected.kind} format ${JSON.stringify(format) ?? 'missing'}, this Reins reads format ${expected.format}`);
    header = schema.parse(parsed) as z.infer<H>;
    entries = z
      .object({ bodySha256: z.string().regex(/^[0-9a-f]{64}$/), ...Object.fromEntries(expected.groups.map((group) => [group, z.array(tensorEntrySchema)])) })
      .parse(parsed) as never;
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError(`${path}: the ${expected.kind}'s header is damaged (${(error as Error).message.split('\n')[0]})`);
  }
  const bodyBytes = bytes.subarray(headerEnd + 1);
  if (createHash('sha256').update(bodyBytes).digest('hex') !== (entries as unknown as { bodySha256: string }).bodySha256) {
    throw new CheckpointError(`${path}: the ${expected.kind}'s weights do not match their checksum (the file is corrupt or cut short)`);
  }
  const body = new Float32Array(bodyBytes.buffer.slice(bodyBytes.byteOffset, bodyBytes.byteOffset + bodyBytes.byteLength));
  const read = (entry: z.infer<typeof tensorEntrySchema>): NamedArray => {
    const size = entry.shape.reduce((product, side) => product * side, 1);
    if (entry.offset + size > body.length) throw new CheckpointError(`${path}: tensor ${entry.name} runs past the end of the ${expected.kind}`);
    return { name: entry.name, shape: entry.shape, values: body.subarray(entry.offset, entry.offset + size) };
  };
  return { header, groups: Object.fromEntries(expected.groups.map((group) => [group, entries[group]!.map(read)])) };
}
