import { describe, expect, it } from 'vitest';
import type { PerceptionStatus } from './contract.ts';
import { providerSummary, threadSummary } from './perceptionSummary.ts';

const status = (modalities: PerceptionStatus['modalities']): PerceptionStatus => ({ version: 'v1', intraOpThreads: 1, interOpThreads: 1, modalities });

describe('perception summary', () => {
  it('names the execution provider the encoders run on, and both when they differ', () => {
    expect(providerSummary(status([{ modality: 'camera', state: 'on', provider: 'cpu' }]))).toBe('CPU');
    expect(
      providerSummary(
        status([
          { modality: 'camera', state: 'on', provider: 'cuda' },
          { modality: 'lidar', state: 'on', provider: 'cpu' },
        ]),
      ),
    ).toBe('CUDA + CPU');
    expect(providerSummary(status([{ modality: 'camera', state: 'off', problem: 'missing' }]))).toBe('—');
  });

  it('says how many threads onnxruntime may use', () => {
    expect(threadSummary(status([]))).toBe('1 intra-op thread, 1 inter-op');
    expect(threadSummary({ ...status([]), intraOpThreads: 2 })).toBe('2 intra-op threads, 1 inter-op');
  });
});
