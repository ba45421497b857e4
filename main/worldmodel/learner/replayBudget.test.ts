import { describe, expect, it } from 'vitest';
import { ReplayBudget } from './replayBudget.ts';

describe('ReplayBudget', () => {
  it('allows as many steps as the ticks received pay for, and no more', () => {
    // Ratio 2, 16 ticks a step: every 8 ticks received pay for one step.
    const budget = new ReplayBudget(2, 16);
    expect(budget.allowsStep()).toBe(false);
    budget.receive(20);
    let steps = 0;
    while (budget.allowsStep()) {
      budget.recordStep();
      steps++;
    }
    expect(steps).toBe(2);
    expect(budget.achievedRatio()).toBeCloseTo(32 / 20);
    budget.receive(4);
    expect(budget.allowsStep()).toBe(true);
  });

  it('reports a ratio of 0 before any tick arrived', () => {
    expect(new ReplayBudget(1, 8).achievedRatio()).toBe(0);
  });
});
