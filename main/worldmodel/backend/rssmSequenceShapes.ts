// What the fused RSSM sequence kernels read: the sizes of one call, and the recurrence's weights as
// the backend's own Float32Arrays, with the GRU's three gates packed side by side so that each step
// takes one product per GRU input instead of three.
import type { NamedAttrMap, TensorInfo } from '@tensorflow/tfjs-core';
import type { NativeBlasBackend } from './nativeBlasBackend.ts';

/** The weight inputs, named as observeSequence's sequenceWeightInputs names them. */
export const SEQUENCE_WEIGHT_NAMES = [
  'imageInWeight',
  'imageInBias',
  'imageInGain',
  'imageInShift',
  'resetInputWeight',
  'resetHiddenWeight',
  'resetInputBias',
  'resetHiddenBias',
  'updateInputWeight',
  'updateHiddenWeight',
  'updateInputBias',
  'updateHiddenBias',
  'candidateInputWeight',
  'candidateHiddenWeight',
  'candidateInputBias',
  'candidateHiddenBias',
  'posteriorHiddenWeight',
  'posteriorHiddenBias',
  'posteriorGain',
  'posteriorShift',
  'posteriorOutWeight',
  'posteriorOutBias',
] as const;

/** Every input of the forward kernel, in the order its gradient returns them. */
export const SEQUENCE_INPUT_NAMES = ['embeddings', 'previousActions', 'noise', ...SEQUENCE_WEIGHT_NAMES] as const;
export type SequenceInputName = (typeof SEQUENCE_INPUT_NAMES)[number];
export type SequenceWeightName = (typeof SEQUENCE_WEIGHT_NAMES)[number];

export const GRU_GATES = ['reset', 'update', 'candidate'] as const;

export interface SequenceSizes {
  /** Sequences side by side (B) and steps (T): rows = T·B. */
  batch: number;
  length: number;
  rows: number;
  embedding: number;
  action: number;
  deterministic: number;
  /** The stochastic state's flat size (groups · classes). */
  stochastic: number;
  classes: number;
  hidden: number;
  uniformMix: number;
  layerNormEpsilon: number;
}

export interface SequenceWeights {
  /** [Z + A, H]: the previous stochastic state's rows first, then the action's. */
  imageInWeight: Float32Array;
  imageInBias: Float32Array;
  imageInGain: Float32Array;
  imageInShift: Float32Array;
  /** [H, 3D] and [D, 3D]: reset | update | candidate columns; biases [3D] likewise. */
  gateInputWeight: Float32Array;
  gateHiddenWeight: Float32Array;
  gateInputBias: Float32Array;
  gateHiddenBias: Float32Array;
  /** [D + E, H]: the deterministic state's rows first, then the embedding's. */
  posteriorHiddenWeight: Float32Array;
  posteriorHiddenBias: Float32Array;
  posteriorGain: Float32Array;
  posteriorShift: Float32Array;
  /** [H, Z] */
  posteriorOutWeight: Float32Array;
  posteriorOutBias: Float32Array;
}

export interface SequenceData {
  /** [rows, E], [rows, A] and [rows · groups, C], time-major. */
  embeddings: Float32Array;
  previousActions: Float32Array;
  noise: Float32Array;
}

export function float32Input(backend: NativeBlasBackend, inputs: Partial<Record<string, TensorInfo>>, name: string): Float32Array {
  const info = inputs[name];
  if (!info) throw new Error(`RSSM sequence kernel: missing input ${name}`);
  const values = backend.data.get(info.dataId).values;
  if (info.dtype !== 'float32' || !(values instanceof Float32Array)) throw new Error(`RSSM sequence kernel: ${name} must be float32`);
  return values;
}

export function sequenceSizes(inputs: Partial<Record<string, TensorInfo>>, attrs: NamedAttrMap): SequenceSizes {
  const shapeOf = (name: SequenceInputName) => {
    const info = inputs[name];
    if (!info) throw new Error(`RSSM sequence kernel: missing input ${name}`);
    return info.shape;
  };
  const [batch, length, classes] = [attrs.batch, attrs.length, attrs.classes] as number[];
  const sizes: SequenceSizes = {
    batch: batch!,
    length: length!,
    rows: batch! * length!,
    embedding: shapeOf('embeddings')[1]!,
    action: shapeOf('previousActions')[1]!,
    deterministic: shapeOf('resetHiddenWeight')[0]!,
    stochastic: shapeOf('posteriorOutWeight')[1]!,
    classes: classes!,
    hidden: shapeOf('imageInWeight')[1]!,
    uniformMix: attrs.uniformMix as number,
    layerNormEpsilon: attrs.layerNormEpsilon as number,
  };
  const expect = (name: SequenceInputName, shape: number[]) => {
    const actual = shapeOf(name);
    if (actual.length !== shape.length || actual.some((size, axis) => size !== shape[axis])) {
      throw new Error(`RSSM sequence kernel: ${name} has shape [${actual.join(', ')}], expected [${shape.join(', ')}]`);
    }
  };
  const { rows, embedding, action, deterministic: d, stochastic: z, hidden: h } = sizes;
  expect('embeddings', [rows, embedding]);
  expect('previousActions', [rows, action]);
  expect('noise', [rows * (z / classes!), classes!]);
  expect('imageInWeight', [z + action, h]);
  for (const gate of GRU_GATES) {
    expect(`${gate}InputWeight`, [h, d]);
    expect(`${gate}HiddenWeight`, [d, d]);
  }
  expect('posteriorHiddenWeight', [d + embedding, h]);
  expect('posteriorOutWeight', [h, z]);
  return sizes;
}

/** [rows, columns] blocks laid side by side: out[i, k·columns + j] = blocks[k][i, j]. */
export function packColumns(blocks: Float32Array[], rows: number, columns: number): Float32Array {
  const out = new Float32Array(rows * columns * blocks.length);
  for (let row = 0; row < rows; row++) {
    blocks.forEach((block, index) => out.set(block.subarray(row * columns, (row + 1) * columns), (row * blocks.length + index) * columns));
  }
  return out;
}

/** The inverse of packColumns. */
export function unpackColumns(packed: Float32Array, count: number, rows: number, columns: number): Float32Array[] {
  return Array.from({ length: count }, (_, index) => {
    const block = new Float32Array(rows * columns);
    for (let row = 0; row < rows; row++) block.set(packed.subarray((row * count + index) * columns, (row * count + index + 1) * columns), row * columns);
    return block;
  });
}

export function sequenceWeights(backend: NativeBlasBackend, inputs: Partial<Record<string, TensorInfo>>, sizes: SequenceSizes): SequenceWeights {
  const read = (name: SequenceWeightName) => float32Input(backend, inputs, name);
  const gates = (part: 'InputWeight' | 'HiddenWeight' | 'InputBias' | 'HiddenBias', rows: number) =>
    packColumns(
      GRU_GATES.map((gate) => read(`${gate}${part}`)),
      rows,
      sizes.deterministic,
    );
  return {
    imageInWeight: read('imageInWeight'),
    imageInBias: read('imageInBias'),
    imageInGain: read('imageInGain'),
    imageInShift: read('imageInShift'),
    gateInputWeight: gates('InputWeight', sizes.hidden),
    gateHiddenWeight: gates('HiddenWeight', sizes.deterministic),
    gateInputBias: gates('InputBias', 1),
    gateHiddenBias: gates('HiddenBias', 1),
    posteriorHiddenWeight: read('posteriorHiddenWeight'),
    posteriorHiddenBias: read('posteriorHiddenBias'),
    posteriorGain: read('posteriorGain'),
    posteriorShift: read('posteriorShift'),
    posteriorOutWeight: read('posteriorOutWeight'),
    posteriorOutBias: read('posteriorOutBias'),
  };
}

export function sequenceData(backend: NativeBlasBackend, inputs: Partial<Record<string, TensorInfo>>): SequenceData {
  return {
    embeddings: float32Input(backend, inputs, 'embeddings'),
    previousActions: float32Input(backend, inputs, 'previousActions'),
    noise: float32Input(backend, inputs, 'noise'),
  };
}
