// The fused embedding: a fixed layout of one slot per modality, then one presence flag per modality.
// An encoder whose output size differs from its slot (a user's 384-float DINOv2 in the 160-float
// camera slot, say) goes through a fixed, seeded random projection, so the same manifest always
// gives the same embedding space. A missing modality is zeros and a 0 flag, never old data.
import { MODALITIES, type Modality } from '../core/perception.ts';
import { seededNormals } from './defaultEncoders.ts';
import { fusionLayout, type EncoderManifest } from './manifest.ts';

/**
 * A [slotSize × outputSize] row-major matrix with entries drawn from N(0, 1/outputSize): a projected
 * value of independent unit-variance inputs has unit variance too, whatever the sizes.
 */
export function randomProjection(slotSize: number, outputSize: number, seed: number): Float32Array {
  const normal = seededNormals(seed);
  const scale = 1 / Math.sqrt(outputSize);
  const matrix = new Float32Array(slotSize * outputSize);
  for (let i = 0; i < matrix.length; i++) matrix[i] = normal() * scale;
  return matrix;
}

/** Each modality's projection has its own seed, derived from the manifest's. */
export function projectionSeed(manifestSeed: number, modality: Modality): number {
  return (manifestSeed + MODALITIES.indexOf(modality) + 1) >>> 0;
}

export class Fusion {
  readonly embeddingSize: number;
  private readonly layout: ReturnType<typeof fusionLayout>;
  private readonly outputSizes: Partial<Record<Modality, number>>;
  private readonly projections = new Map<Modality, Float32Array>();
  private readonly scales: Readonly<Record<Modality, number>>;

  /** `outputSizes`: each configured encoder's output size (the manifest's, checked against the model). */
  constructor(manifest: Pick<EncoderManifest, 'fusion' | 'embeddingSize'>, outputSizes: Partial<Record<Modality, number>>) {
    this.layout = fusionLayout(manifest);
    this.embeddingSize = manifest.embeddingSize;
    this.outputSizes = outputSizes;
    this.scales = manifest.fusion.scales ?? { camera: 1, lidar: 1, proprio: 1 };
    for (const modality of MODALITIES) {
      const outputSize = outputSizes[modality];
      const slotSize = this.layout[modality].size;
      if (outputSize !== undefined && outputSize !== slotSize) {
        this.projections.set(modality, randomProjection(slotSize, outputSize, projectionSeed(manifest.fusion.projectionSeed, modality)));
      }
    }
  }

  /** True when the modality's encoder output goes through a projection into its slot. */
  projects(modality: Modality): boolean {
    return this.projections.has(modality);
  }

  /**
   * Writes one modality's slot and presence flag into `embedding`; `output` undefined writes zeros
   * and flag 0. Returns whether the modality is present.
   */
  write(modality: Modality, output: Float32Array | undefined, embedding: Float32Array): boolean {
    if (embedding.length !== this.embeddingSize) throw new RangeError(`embedding holds ${embedding.length} floats, the layout needs ${this.embeddingSize}`);
    const slot = this.layout[modality];
    const flagAt = this.layout.mask.offset + MODALITIES.indexOf(modality);
    if (output === undefined) {
      embedding.fill(0, slot.offset, slot.offset + slot.size);
      embedding[flagAt] = 0;
      return false;
    }
    if (output.length !== this.outputSizes[modality]) {
      throw new RangeError(`${modality} output holds ${output.length} floats, the fusion expects ${this.outputSizes[modality] ?? 'none'}`);
    }
    const projection = this.projections.get(modality);
    const scale = this.scales[modality];
    if (projection === undefined) {
      for (let i = 0; i < slot.size; i++) embedding[slot.offset + i] = output[i]! * scale;
    } else {
      for (let row = 0; row < slot.size; row++) {
        let sum = 0;
        const rowAt = row * output.length;
        for (let column = 0; column < output.length; column++) sum += projection[rowAt + column]! * output[column]!;
        embedding[slot.offset + row] = sum * scale;
      }
    }
    embedding[flagAt] = 1;
    return true;
  }
}
