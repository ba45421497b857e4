import { describe, expect, it } from 'vitest';
import type { WorldModelStatus } from './contract.ts';
import { formatFigure, learnerSummary, learnerTone } from './worldModelSummary.ts';

const base: WorldModelStatus = { preset: 'wm-xs', backend: 'native', version: 'initial', learner: 'training', trainSteps: 1234 };

describe('the world model in words', () => {
  it('says what the learner is doing and why it waits', () => {
    expect(learnerSummary(base)).toBe('learning · 1,234 steps');
    expect(learnerSummary({ ...base, learner: 'waiting', waitingFor: 'replay-ratio' })).toBe('1,234 steps · waiting for new ticks (replay ratio met)');
    expect(learnerSummary({ ...base, learner: 'failed' })).toBe('learner failed after 1,234 steps');
    expect(learnerTone({ ...base, learner: 'failed' })).toBe('error');
    expect(learnerTone({ ...base, learner: 'starting' })).toBe('neutral');
  });

  it('shows a dash for a figure it does not have yet', () => {
    expect(formatFigure(undefined, 2)).toBe('—');
    expect(formatFigure(Number.NaN, 2)).toBe('—');
    expect(formatFigure(0.12345, 3)).toBe('0.123');
  });
});
