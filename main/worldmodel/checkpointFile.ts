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
  let offset = 0;
  const place = (array: NamedArray) => {
    const size = array.shape.reduce((product, side) => product * side, 1);
    if (size !== array.values.length) throw new RangeError(`checkpoint tensor ${array.name}: shape [${array.shape.join(', ')}] holds ${size} values, got ${array.values.length}`);
    const entry = { name: array.name, shape: array.shape, offset };
    offset += size;
    return entry;
  };
  const weights = checkpoint.weights.map(place);
  const optimizer = checkpoint.optimizer.map(place);
  const body = new Float32Array(offset);
  for (const [index, array] of [...checkpoint.weights, ...checkpoint.optimizer].entries()) body.set(array.values, [...weights, ...optimizer][index]!.offset);
  const bodyBytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const header = {
    format: CHECKPOINT_FORMAT,
    version: checkpoint.version,
    config: checkpoint.config,
    encoderVersion: checkpoint.encoderVersion,
    trainSteps: checkpoint.trainSteps,
    createdAtMs: checkpoint.createdAtMs,
    weights,
    optimizer,
    optimizerIterations: checkpoint.optimizerIterations,
    bodySha256: createHash('sha256').update(bodyBytes).digest('hex'),
  } satisfies z.infer<typeof headerSchema>;
  const headerBytes = Buffer.from(`${JSON.stringify(header)}\n`, 'utf8');
  // The body starts on a 4-byte boundary so it can be read as float32 in place.
  const padding = Buffer.alloc((4 - ((MAGIC.length + headerBytes.length) % 4)) % 4, ' ');
  const temporary = `${path}.partial-${process.pid}`;
  const file = await open(temporary, 'w');
  try {
    await file.writev([Buffer.from(MAGIC, 'utf8'), padding, headerBytes, bodyBytes]);
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await file.close();
  await rename(temporary, path);
}

/** Reads and checks a checkpoint; throws a CheckpointError that says what is wrong with it. */
export async function readCheckpoint(path: string): Promise<WorldModelCheckpoint> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new CheckpointError(`cannot read world-model checkpoint ${path}: ${(error as Error).message}`);
  }
  if (bytes.subarray(0, MAGIC.length).toString('utf8') !== MAGIC) throw new CheckpointError(`${path} is not a Reins world-model checkpoint`);
  const headerEnd = bytes.indexOf(0x0a, MAGIC.length);
  if (headerEnd < 0) throw new CheckpointError(`${path}: the checkpoint's header is cut off`);
  let header: z.infer<typeof headerSchema>;
  try {
    const parsed: unknown = JSON.parse(bytes.subarray(MAGIC.length, headerEnd).toString('utf8'));
    const format = (parsed as { format?: unknown }).format;
    if (format !== CHECKPOINT_FORMAT) throw new CheckpointError(`${path}: checkpoint format ${String(format)}, this Reins reads format ${CHECKPOINT_FORMAT}`);
    header = headerSchema.parse(parsed);
  } catch (error) {
    if (error instanceof CheckpointError) throw error;
    throw new CheckpointError(`${path}: the checkpoint's header is damaged (${(error as Error).message.split('\n')[0]})`);
  }
  const bodyStart = headerEnd + 1;
  const bodyBytes = bytes.subarray(bodyStart);
  if (createHash('sha256').update(bodyBytes).digest('hex') !== header.bodySha256) {
    throw new CheckpointError(`${path}: the checkpoint's weights do not match their checksum (the file is corrupt or cut short)`);
  }
  const body = new Float32Array(bodyBytes.buffer.slice(bodyBytes.byteOffset, bodyBytes.byteOffset + bodyBytes.byteLength));
  const read = (entry: z.infer<typeof tensorEntrySchema>): NamedArray => {
    const size = entry.shape.reduce((product, side) => product * side, 1);
    if (entry.offset + size > body.length) throw new CheckpointError(`${path}: tensor ${entry.name} runs past the end of the checkpoint`);
    return { name: entry.name, shape: entry.shape, values: body.subarray(entry.offset, entry.offset + size) };
  };
  return {
    version: header.version,
    config: header.config,
    encoderVersion: header.encoderVersion,
    trainSteps: header.trainSteps,
    createdAtMs: header.createdAtMs,
    weights: header.weights.map(read),
    optimizer: header.optimizer.map(read),
    optimizerIterations: header.optimizerIterations,
  };
}
