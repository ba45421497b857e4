import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointPath, listCheckpoints, pruneCheckpoints } from './checkpointDirectory.ts';

describe('checkpoint directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'reins-checkpoints-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A checkpoint file of `step` last written at `modifiedSecs`. */
  function place(encoderVersion: string, step: number, modifiedSecs: number): string {
    const path = checkpointPath(dir, encoderVersion, step);
    writeFileSync(path, 'x');
    utimesSync(path, modifiedSecs, modifiedSecs);
    return path;
  }

  it('lists one encoder version’s checkpoints newest first, leaving out others and half-written files', async () => {
    const older = place('enc', 50, 1_000);
    const newer = place('enc', 3, 2_000);
    place('enc-2', 7, 3_000);
    writeFileSync(`${checkpointPath(dir, 'enc', 9)}.partial-123`, 'x');
    expect((await listCheckpoints(dir, 'enc')).map((file) => [file.path, file.step])).toEqual([
      [newer, 3],
      [older, 50],
    ]);
    expect(await listCheckpoints(join(dir, 'missing'), 'enc')).toEqual([]);
  });

  it('names files safely whatever the encoder version holds', () => {
    expect(checkpointPath(dir, 'cam/v2 lidar', 12)).toBe(join(dir, 'world-model-cam_v2_lidar-12.ckpt'));
  });

  it('keeps only the newest few', async () => {
    for (const step of [1, 2, 3, 4]) place('enc', step, 1_000 + step);
    await pruneCheckpoints(dir, 'enc', 2);
    expect((await readdir(dir)).sort()).toEqual(['world-model-enc-3.ckpt', 'world-model-enc-4.ckpt']);
  });
});
