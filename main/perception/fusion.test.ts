import { describe, expect, it } from 'vitest';
import { seededNormals } from './defaultEncoders.ts';
import { Fusion, randomProjection } from './fusion.ts';

const manifest = { embeddingSize: 10 + 4 + 3 + 3, fusion: { slots: { camera: 10, lidar: 4, proprio: 3 }, projectionSeed: 42 } };

describe('Fusion', () => {
  it('puts each output in its slot and sets its presence flag', () => {
    const fusion = new Fusion(manifest, { camera: 10, lidar: 4, proprio: 3 });
    const embedding = new Float32Array(fusion.embeddingSize);
    expect(fusion.write('lidar', Float32Array.from([1, 2, 3, 4]), embedding)).toBe(true);
    expect(fusion.write('proprio', Float32Array.from([5, 6, 7]), embedding)).toBe(true);
    expect([...embedding.slice(10, 17)]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect([...embedding.slice(17)]).toEqual([0, 1, 1]);
  });

  it("scales each slot by the manifest's fusion scale, and leaves the flags at 1", () => {
    const fusion = new Fusion(
      { ...manifest, fusion: { ...manifest.fusion, scales: { camera: 1, lidar: 0.5, proprio: 2 } } },
      { camera: 10, lidar: 4, proprio: 3 },
    );
    const embedding = new Float32Array(fusion.embeddingSize);
    fusion.write('lidar', Float32Array.from([1, 2, 3, 4]), embedding);
    fusion.write('proprio', Float32Array.from([5, 6, 7]), embedding);
    expect([...embedding.slice(10, 17)]).toEqual([0.5, 1, 1.5, 2, 10, 12, 14]);
    expect([...embedding.slice(18)]).toEqual([1, 1]);
  });

  it('writes zeros and a 0 flag for a missing modality, over whatever was there', () => {
    const fusion = new Fusion(manifest, { camera: 10, lidar: 4, proprio: 3 });
    const embedding = new Float32Array(fusion.embeddingSize).fill(9);
    expect(fusion.write('lidar', undefined, embedding)).toBe(false);
    expect([...embedding.slice(10, 14)]).toEqual([0, 0, 0, 0]);
    expect(embedding[18]).toBe(0);
  });

  it('projects an output of another size into its slot, the same way every time', () => {
    const output = Float32Array.from({ length: 24 }, (_, i) => Math.sin(i));
    const fuse = () => {
      const fusion = new Fusion(manifest, { camera: 24 });
      const embedding = new Float32Array(fusion.embeddingSize);
      fusion.write('camera', output, embedding);
      return embedding;
    };
    const first = fuse();
    expect(new Fusion(manifest, { camera: 24 }).projects('camera')).toBe(true);
    expect(first).toEqual(fuse());
    expect(first.slice(0, 10).some((v) => v !== 0)).toBe(true);
    expect(first[17]).toBe(1);
    expect(() => new Fusion(manifest, { camera: 24 }).write('camera', new Float32Array(10), new Float32Array(20))).toThrow(/expects 24/);
  });

  it('uses another projection for another seed', () => {
    expect(randomProjection(4, 8, 1)).not.toEqual(randomProjection(4, 8, 2));
    expect(randomProjection(4, 8, 1)).toEqual(randomProjection(4, 8, 1));
    expect(randomProjection(4, 8, 1)).toHaveLength(32);
  });

  it('keeps the variance of its inputs (384 floats into 160)', () => {
    const projection = randomProjection(160, 384, 7);
    const normal = seededNormals(99);
    let sumSquares = 0;
    const samples = 200;
    for (let s = 0; s < samples; s++) {
      const input = Float32Array.from({ length: 384 }, () => normal());
      for (let row = 0; row < 160; row++) {
        let value = 0;
        for (let column = 0; column < 384; column++) value += projection[row * 384 + column]! * input[column]!;
        sumSquares += value * value;
      }
    }
    expect(sumSquares / (samples * 160)).toBeCloseTo(1, 1);
  });
});
