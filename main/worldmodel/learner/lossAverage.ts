// The mean of each training figure since it was last taken: what a checkpoint's memory row scores,
// so a row says how the model did over the steps it sums up, not on its last batch alone.
import type { TrainStepFigures } from '../worldModelTrainer.ts';

export class LossAverage {
  private sums: TrainStepFigures = zeros();
  private steps = 0;

  add(figures: TrainStepFigures): void {
    for (const key of Object.keys(this.sums) as (keyof TrainStepFigures)[]) this.sums[key] += figures[key];
    this.steps++;
  }

  /** `loss` (the total) and each term, averaged; then starts again. Empty when no step was added. */
  takeMeans(): Record<string, number> {
    if (this.steps === 0) return {};
    const { total, ...terms } = this.sums;
    const means = Object.fromEntries(Object.entries({ loss: total, ...terms }).map(([key, sum]) => [key, sum / this.steps]));
    this.sums = zeros();
    this.steps = 0;
    return means;
  }
}

function zeros(): TrainStepFigures {
  return { total: 0, decoder: 0, reward: 0, continuation: 0, klNats: 0, gradNorm: 0 };
}
