// `reins bench worldmodel`: how fast the world model trains on each backend against the reference
// PyTorch script, how well the live preset predicts and notices injected events after a stated
// training budget, and what the control tick costs while the learner trains beside it.
import { selectLearnerBackend } from '../../session/worldModelBackend.ts';
import type { BenchRow } from './report.ts';
import { qualityRows } from './worldModelQuality.ts';
import { tickWithLearnerRows } from './worldModelTickBench.ts';
import { trainSpeedRows } from './worldModelTrainSpeed.ts';

export async function runWorldModelBench(): Promise<BenchRow[]> {
  const speed = await trainSpeedRows();
  // The speed rows leave the last backend they timed (the slowest) in place: train on the fastest,
  // as the learner does, OpenBLAS on one thread.
  await selectLearnerBackend();
  const quality = await qualityRows();
  const tick = await tickWithLearnerRows();
  return [...speed, ...quality, ...tick];
}
