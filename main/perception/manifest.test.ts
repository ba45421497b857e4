import { describe, expect, it } from 'vitest';
import { fusionLayout, parseEncoderManifest } from './manifest.ts';

const manifest = (slots: Record<string, number>, embeddingSize: number) =>
  JSON.stringify({ version: 'v', embeddingSize, encoders: {}, fusion: { slots, projectionSeed: 1 } });

describe('the fusion layout', () => {
  it('reads a manifest written before the liveness slot as before: the three slots, then the flags', () => {
    const layout = fusionLayout(parseEncoderManifest(manifest({ camera: 160, lidar: 64, proprio: 29 }, 256), 'old.json'));
    expect(layout).toEqual({
      camera: { offset: 0, size: 160 },
      lidar: { offset: 160, size: 64 },
      proprio: { offset: 224, size: 29 },
      mask: { offset: 253, size: 3 },
    });
  });

  it('puts the liveness slot after proprioception and before the flags', () => {
    const layout = fusionLayout(parseEncoderManifest(manifest({ camera: 160, lidar: 64, proprio: 23, liveness: 6 }, 256), 'new.json'));
    expect(layout.liveness).toEqual({ offset: 247, size: 6 });
    expect(layout.mask).toEqual({ offset: 253, size: 3 });
  });

  it('refuses a liveness slot of another size, and an embedding size that leaves the slot out', () => {
    expect(() => parseEncoderManifest(manifest({ camera: 160, lidar: 64, proprio: 23, liveness: 4 }, 254), 'bad.json')).toThrow(
      /bad\.json is invalid: fusion\.slots\.liveness/,
    );
    expect(() => parseEncoderManifest(manifest({ camera: 160, lidar: 64, proprio: 23, liveness: 6 }, 250), 'bad.json')).toThrow(/embeddingSize must equal/);
  });
});
