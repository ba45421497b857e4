// `reins bench worldmodel`: how fast the world model trains on each backend against the reference
// PyTorch script, how well the live preset predicts and notices injected events after a stated
// training budget, and what the control tick costs while the learner trains beside it. `--save FILE`
// keeps the model the quality rows trained; `--from FILE` evaluates a kept model instead (no training,
// so no training-speed rows either): the way to look again at one model as its rows change.
import { selectLearnerBackend } from '../../session/worldModelBackend.ts';
import type { BenchRow } from './report.ts';
import { DEFAULT_QUALITY_OPTIONS, qualityRows, type QualityOptions } from './worldModelQuality.ts';
import { tickWithLearnerRows } from './worldModelTickBench.ts';
import { trainSpeedRows } from './worldModelTrainSpeed.ts';

export async function runWorldModelBench(model: Pick<QualityOptions, 'saveModelTo' | 'modelFrom'> = {}): Promise<BenchRow[]> {
  const speed = model.modelFrom === undefined ? await trainSpeedRows() : [];
  // The speed rows leave the last backend they timed (the slowest) in place: train on the fastest,
  // as the learner does, OpenBLAS on one thread.
  await selectLearnerBackend();
  const quality = await qualityRows({ ...DEFAULT_QUALITY_OPTIONS, ...model });
  const tick = await tickWithLearnerRows();
  return [...speed, ...quality, ...tick];
}
