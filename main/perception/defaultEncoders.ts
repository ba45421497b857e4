// The shapes of the default encoders, and how to fill one with random weights (the starting point
// of training, and the untrained floor the perception bench compares against).
import type { Modality } from '../core/perception.ts';
import { LIVENESS_SIZE, PROPRIO_FIELDS } from './manifest.ts';
import type { LayerSpec, SequentialNet } from './sequentialOnnx.ts';

export type LayerShape =
  | { kind: 'patch-conv'; kernelPx: readonly [number, number]; inChannels: number; outChannels: number }
  | { kind: 'dense'; inSize: number; outSize: number }
  | { kind: 'relu' }
  | { kind: 'flatten' };

export interface EncoderShape {
  inputName: string;
  outputName: string;
  inputShape: readonly number[];
  layers: readonly LayerShape[];
}

export const CAMERA_INPUT_PX = { widthPx: 64, heightPx: 48 } as const;
export const LIDAR_BINS = 180;
/**
 * The fused embedding stays 256 floats: camera 160, LiDAR 64, proprioception 23, liveness 6, presence
 * flags 3 (the proprioception slot gave 6 of its former 29 to liveness; issue 30).
 */
export const DEFAULT_SLOTS = { camera: 160, lidar: 64, proprio: 23 } as const;
export const DEFAULT_LIVENESS_SLOT = LIVENESS_SIZE;

export const DEFAULT_ENCODER_SHAPES: Readonly<Record<Modality, EncoderShape>> = {
  camera: {
    inputName: 'image',
    outputName: 'embedding',
    inputShape: [CAMERA_INPUT_PX.heightPx, CAMERA_INPUT_PX.widthPx, 3],
    layers: [
      { kind: 'patch-conv', kernelPx: [4, 4], inChannels: 3, outChannels: 32 },
      { kind: 'relu' },
      { kind: 'patch-conv', kernelPx: [2, 2], inChannels: 32, outChannels: 64 },
      { kind: 'relu' },
      { kind: 'patch-conv', kernelPx: [2, 2], inChannels: 64, outChannels: 96 },
      { kind: 'relu' },
      { kind: 'flatten' },
      { kind: 'dense', inSize: 3 * 4 * 96, outSize: DEFAULT_SLOTS.camera },
    ],
  },
  lidar: {
    inputName: 'ranges',
    outputName: 'embedding',
    inputShape: [LIDAR_BINS * 3],
    layers: [{ kind: 'dense', inSize: LIDAR_BINS * 3, outSize: 256 }, { kind: 'relu' }, { kind: 'dense', inSize: 256, outSize: DEFAULT_SLOTS.lidar }],
  },
  proprio: {
    inputName: 'proprio',
    outputName: 'embedding',
    inputShape: [PROPRIO_FIELDS.length],
    layers: [{ kind: 'dense', inSize: PROPRIO_FIELDS.length, outSize: 64 }, { kind: 'relu' }, { kind: 'dense', inSize: 64, outSize: DEFAULT_SLOTS.proprio }],
  },
};

/** How many inputs feed each unit of a layer: what He initialisation scales by. */
function fanIn(layer: LayerShape): number {
  if (layer.kind === 'patch-conv') return layer.kernelPx[0] * layer.kernelPx[1] * layer.inChannels;
  if (layer.kind === 'dense') return layer.inSize;
  return 1;
}

/** A small seeded generator (mulberry32) with Box–Muller normals: the same seed, the same weights. */
export function seededNormals(seed: number): () => number {
  let state = seed >>> 0;
  const uniform = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** He-initialised weights and zero biases. */
export function randomlyInitialised(shape: EncoderShape, seed: number): SequentialNet {
  const normal = seededNormals(seed);
  const layers: LayerSpec[] = shape.layers.map((layer) => {
    if (layer.kind === 'relu' || layer.kind === 'flatten') return layer;
    const count = layer.kind === 'dense' ? layer.inSize * layer.outSize : layer.kernelPx[0] * layer.kernelPx[1] * layer.inChannels * layer.outChannels;
    const scale = Math.sqrt(2 / fanIn(layer));
    const weights = new Float32Array(count);
    for (let i = 0; i < count; i++) weights[i] = normal() * scale;
    const bias = new Float32Array(layer.kind === 'dense' ? layer.outSize : layer.outChannels);
    return { ...layer, weights, bias };
  });
  return { inputName: shape.inputName, outputName: shape.outputName, inputShape: shape.inputShape, layers };
}
