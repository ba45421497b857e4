import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { nativeBlasForTests } from '../../../test/support/nativeBlasForTests.ts';
import { BackendUnavailableError, loadWorldModelBackend, selectWorldModelBackend } from './selectBackend.ts';

const blas = nativeBlasForTests();
const MISSING_ADDON = '/nonexistent/reins_blas.node';

describe('selectWorldModelBackend', () => {
  it.skipIf(!blas)('passes over the absent tfjs-node packages to the native OpenBLAS backend', async () => {
    const selection = await selectWorldModelBackend();
    expect(selection.backend).toBe('native');
    expect(tf.getBackend()).toBe('native');
    expect(selection.tried).toEqual([
      { backend: 'tfjs-node-gpu', reason: expect.stringMatching(/@tensorflow\/tfjs-node-gpu is not installed/) },
      { backend: 'tfjs-node', reason: expect.stringMatching(/@tensorflow\/tfjs-node is not installed/) },
    ]);
  });

  it('falls back to wasm and says why when the native addon is missing', async () => {
    const selection = await selectWorldModelBackend(undefined, { nativeBlasPath: MISSING_ADDON });
    expect(selection.backend).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(selection.tried.map((t) => t.backend)).toEqual(['tfjs-node-gpu', 'tfjs-node', 'native']);
    expect(selection.tried[2]!.reason).toMatch(/\/nonexistent\/reins_blas\.node is not built \(run node native\/build\.mjs/);
  });

  it('ends on cpu when neither native nor wasm is wanted', async () => {
    const selection = await selectWorldModelBackend(['native', 'cpu'], { nativeBlasPath: MISSING_ADDON });
    expect(selection).toEqual({ backend: 'cpu', tried: [{ backend: 'native', reason: expect.stringMatching(/not built/) }] });
    expect(tf.getBackend()).toBe('cpu');
  });
});

describe('loadWorldModelBackend', () => {
  it('names the backend and the reason when it cannot load', async () => {
    const load = loadWorldModelBackend('tfjs-node');
    await expect(load).rejects.toThrow(BackendUnavailableError);
    await expect(load).rejects.toThrow(/TF.js backend 'tfjs-node' did not load: @tensorflow\/tfjs-node is not installed/);
  });

  it('loads exactly the backend asked for', async () => {
    await loadWorldModelBackend('cpu');
    expect(tf.getBackend()).toBe('cpu');
    await loadWorldModelBackend('wasm');
    expect(tf.getBackend()).toBe('wasm');
    expect(tf.sum(tf.tensor1d([1, 2, 3])).dataSync()[0]).toBe(6);
  });
});
