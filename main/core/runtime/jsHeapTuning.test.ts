import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { heapLimitAfterCollection } from '../../../test/support/v8HeapTrace.ts';
import { HEAP_GROWING_PERCENT } from './jsHeapTuning.ts';

const MODULE = fileURLToPath(new URL('./jsHeapTuning.ts', import.meta.url));

describe('tuneJsHeap', () => {
  it('lets the old generation grow to twice what survived a full collection before V8 marks it again', () => {
    const { liveMb, limitMb } = heapLimitAfterCollection(MODULE, 'tuneJsHeap');
    expect(liveMb).toBeGreaterThan(40);
    expect(limitMb).toBeDefined();
    const factor = 1 + HEAP_GROWING_PERCENT / 100;
    // The trace's sizes take in the young generation beside the old: 2.2 here, where V8's own choice was 4.2.
    expect(limitMb! / liveMb).toBeGreaterThan(factor * 0.9);
    expect(limitMb! / liveMb).toBeLessThan(factor * 1.3);
  });
});
