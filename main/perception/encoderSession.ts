// One encoder, loaded from its manifest entry and checked before it is trusted: the file's sha256
// before onnxruntime sees it, the model's input and output against the manifest, and a trial run.
// Every later run reuses one input buffer, one input tensor and one output tensor, and refuses an
// output with NaN or Infinity in it. Every error names the file and the problem.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import * as ort from 'onnxruntime-node';
import { createSession, type ProviderPreference, type ThreadSettings } from './executionProvider.ts';
import type { EncoderEntry } from './manifest.ts';
import type { ExecutionProvider, Modality } from '../core/perception.ts';
import { elementCount, rangesInputSize } from './preprocess.ts';

/** A path as the operator reads it: relative to the working folder when it lies inside it. */
export function displayPath(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : path;
}

const formatShape = (shape: ReadonlyArray<number | string>) => `[${shape.join(', ')}]`;

/** The input shape (batch of 1 included) that an entry's preprocessing writes. */
export function preparedInputShape(entry: EncoderEntry): number[] {
  const prep = entry.preprocessing;
  switch (prep.kind) {
    case 'image':
      return prep.layout === 'nhwc' ? [1, prep.heightPx, prep.widthPx, 3] : [1, 3, prep.heightPx, prep.widthPx];
    case 'ranges':
      return [1, rangesInputSize(prep)];
    case 'proprio':
      return [1, prep.fields.length];
  }
}

async function readVerified(path: string, expectedSha256: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`encoder file ${displayPath(path)} is missing`);
    throw new Error(`encoder file ${displayPath(path)} could not be read: ${(error as Error).message}`);
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== expectedSha256) {
    throw new Error(`encoder file ${displayPath(path)} fails its sha256 check: the manifest expects ${expectedSha256}, the file has ${actual}`);
  }
  return bytes;
}

function tensorMetadata(list: readonly ort.InferenceSession.ValueMetadata[], name: string, role: 'input' | 'output', file: string) {
  const found = list.find((value) => value.name === name);
  if (!found) {
    throw new Error(`encoder file ${file} has no ${role} named "${name}" (its ${role}s: ${list.map((value) => value.name).join(', ') || 'none'})`);
  }
  if (!found.isTensor || found.type !== 'float32') {
    throw new Error(`encoder file ${file}: ${role} "${name}" is ${found.isTensor ? found.type : 'not a tensor'}, the manifest says float32`);
  }
  return found;
}

/** Model dims against the manifest's: equal rank, and every fixed dim equal (a named dim such as "batch" fits any). */
function checkInputShape(modelShape: ReadonlyArray<number | string>, manifestShape: readonly number[], name: string, file: string): void {
  const fits = modelShape.length === manifestShape.length && modelShape.every((dim, i) => typeof dim === 'string' || dim === manifestShape[i]);
  if (!fits) {
    throw new Error(`encoder file ${file} takes input "${name}" of shape ${formatShape(modelShape)}, but the manifest gives it ${formatShape(manifestShape)}`);
  }
}

/** Where the output's size is fixed in the model (all dims known past a batch), it must be the manifest's. */
function checkOutputShape(modelShape: ReadonlyArray<number | string>, size: number, name: string, file: string): void {
  const [batch, ...rest] = modelShape;
  if (!rest.every((dim) => typeof dim === 'number') || !(batch === 1 || typeof batch === 'string')) return;
  const modelSize = elementCount(rest as number[]);
  if (modelSize !== size) {
    throw new Error(
      `encoder file ${file} gives output "${name}" of shape ${formatShape(modelShape)} (${modelSize} floats), but the manifest says size ${size}`,
    );
  }
}

function firstNonFinite(values: Float32Array): number | undefined {
  for (let i = 0; i < values.length; i++) if (!Number.isFinite(values[i]!)) return values[i];
  return undefined;
}

export interface EncoderSessionLoad {
  modality: Modality;
  entry: EncoderEntry;
  /** The encoder file, resolved against the manifest's folder. */
  path: string;
  provider: ProviderPreference;
  threads: ThreadSettings;
}

export class EncoderSession {
  /** The model's input, written by preprocessing every tick; the input tensor wraps it. */
  readonly input: Float32Array;
  /** Where every run's output lands; valid until the next run. */
  readonly output: Float32Array;
  readonly file: string;
  private readonly feeds: Record<string, ort.Tensor>;
  private readonly fetches: Record<string, ort.Tensor>;

  private constructor(
    private readonly session: ort.InferenceSession,
    readonly provider: ExecutionProvider,
    readonly providerNote: string | undefined,
    entry: EncoderEntry,
    file: string,
    outputDims: readonly number[],
  ) {
    this.file = file;
    this.input = new Float32Array(elementCount(entry.input.shape));
    this.output = new Float32Array(entry.output.size);
    this.feeds = { [entry.input.name]: new ort.Tensor('float32', this.input, entry.input.shape) };
    this.fetches = { [entry.output.name]: new ort.Tensor('float32', this.output, outputDims) };
  }

  static async load(load: EncoderSessionLoad): Promise<EncoderSession> {
    const { entry, path } = load;
    const file = displayPath(path);
    const prepared = preparedInputShape(entry);
    if (formatShape(prepared) !== formatShape(entry.input.shape)) {
      throw new Error(
        `encoder manifest entry for ${load.modality} (${file}): input shape ${formatShape(entry.input.shape)} does not fit its preprocessing, which writes ${formatShape(prepared)}`,
      );
    }
    const bytes = await readVerified(path, entry.sha256);
    let created;
    try {
      created = await createSession(bytes, load.provider, load.threads);
    } catch (error) {
      throw new Error(`encoder file ${file} could not be loaded by onnxruntime (truncated, or not an ONNX model?): ${(error as Error).message.trim()}`);
    }
    const { session, provider, providerNote } = created;
    try {
      if (session.inputNames.length !== 1) {
        throw new Error(`encoder file ${file} takes ${session.inputNames.length} inputs (${session.inputNames.join(', ')}); Reins feeds exactly one`);
      }
      const input = tensorMetadata(session.inputMetadata, entry.input.name, 'input', file);
      if (input.isTensor) checkInputShape(input.shape, entry.input.shape, entry.input.name, file);
      const output = tensorMetadata(session.outputMetadata, entry.output.name, 'output', file);
      if (output.isTensor) checkOutputShape(output.shape, entry.output.size, entry.output.name, file);
      const outputDims = await trialRun(session, entry, file);
      return new EncoderSession(session, provider, providerNote, entry, file, outputDims);
    } catch (error) {
      await session.release();
      throw error;
    }
  }

  /** Runs the model on `input`; throws, naming the file, when the output holds NaN or Infinity. */
  async run(): Promise<Float32Array> {
    await this.session.run(this.feeds, this.fetches);
    const bad = firstNonFinite(this.output);
    if (bad !== undefined) throw new Error(`encoder file ${this.file} produced ${bad} in its output`);
    return this.output;
  }

  close(): Promise<void> {
    return this.session.release();
  }
}

/** One run on an all-zeros input (the normalised mean): the output's real size, and no NaN. Returns its dims. */
async function trialRun(session: ort.InferenceSession, entry: EncoderEntry, file: string): Promise<number[]> {
  const zeros = new ort.Tensor('float32', new Float32Array(elementCount(entry.input.shape)), entry.input.shape);
  let result: ort.InferenceSession.ReturnType;
  try {
    result = await session.run({ [entry.input.name]: zeros }, [entry.output.name]);
  } catch (error) {
    throw new Error(`encoder file ${file} failed a trial run on input ${formatShape(entry.input.shape)}: ${(error as Error).message.trim()}`);
  }
  const output = result[entry.output.name]!;
  const values = output.data as Float32Array;
  if (values.length !== entry.output.size) {
    throw new Error(`encoder file ${file} gives ${values.length} floats from output "${entry.output.name}", but the manifest says size ${entry.output.size}`);
  }
  const bad = firstNonFinite(values);
  if (bad !== undefined) throw new Error(`encoder file ${file} produced ${bad} in its output on a trial run`);
  return [...output.dims];
}
