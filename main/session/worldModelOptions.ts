// `reins start`'s world-model settings, apart from the model itself so that parsing arguments loads no TF.js.
import { DEFAULT_LIVE_PRESET, type PresetName } from '../worldmodel/worldModelConfig.ts';

export interface WorldModelArgs {
  /** undefined: no world model (`--no-world-model`). */
  preset: PresetName | undefined;
  /** Ticks trained on per tick lived; the learner waits when it is ahead. */
  replayRatio: number;
}

export const DEFAULT_WORLD_MODEL_ARGS: Readonly<WorldModelArgs> = Object.freeze({ preset: DEFAULT_LIVE_PRESET, replayRatio: 64 });
