import { describe, expect, it } from 'vitest';
import { openEncoders } from '../../session/encoders.ts';
import { createWorldModel, disposeWorldModel, sessionWorldModelConfig } from '../../session/worldModelParts.ts';
import { recordSimEpisodes } from './worldModelEpisodes.ts';
import { DEFAULT_QUALITY_OPTIONS, freezeRow, qualityRows, shownSeries } from './worldModelQuality.ts';

describe('the camera-freeze rows', () => {
  it('find nothing with untrained weights: a frozen view drawn with fresh noise is no easier to tell than a live one, moving or standing', async () => {
    const perception = await openEncoders();
    const slots = perception.slots;
    await perception.close();
    const freezes = { events: true, eventChoice: { kinds: ['camera-freeze'], freezeFreshNoise: true } } as const;
    const base = { arenaSeeds: [9500, 9501, 9502], segmentsPerArena: 2, ticksPerSegment: 200, seed: 11 };
    const moving = await recordSimEpisodes({ ...base, ...freezes });
    const standing = await recordSimEpisodes({ ...base, ...freezes, standStill: true });
    const model = createWorldModel(sessionWorldModelConfig('wm-xs', { embeddingSize: moving[0]!.embeddingSize, actionLimits: [0.6, 2] }), 1);
    try {
      for (const episodes of [moving, standing]) {
        const row = freezeRow('untrained', shownSeries(model.rssm, episodes, slots));
        expect(Number.isFinite(row.value)).toBe(true);
        expect(row.value).toBeLessThanOrEqual(0.65);
      }
    } finally {
      disposeWorldModel(model);
    }
  }, 60_000);
});

describe('reins bench worldmodel --from / --save', () => {
  it('tells a model file it cannot read, or a folder it cannot keep one in, before recording or training anything', async () => {
    await expect(qualityRows({ ...DEFAULT_QUALITY_OPTIONS, modelFrom: '/nonexistent/wm.ckpt' })).rejects.toThrow(
      /cannot read world-model checkpoint \/nonexistent\/wm\.ckpt/,
    );
    await expect(qualityRows({ ...DEFAULT_QUALITY_OPTIONS, saveModelTo: '/nonexistent/wm.ckpt' })).rejects.toThrow(
      /cannot keep the world model at \/nonexistent\/wm\.ckpt: its folder \/nonexistent cannot be written \(ENOENT\)/,
    );
    // Told after the recording instead, each would take minutes, past this test's limit.
  }, 60_000);
});
