// The world model's shape and training constants, by preset. `wm-s` is the benchmark configuration
// and matches ../shared/reference/rssm_wm_s.py layer for layer (4,734,210 parameters); the smaller
// presets run live beside the control loop on small machines.
import { z } from 'zod';

export const PRESET_NAMES = ['wm-s', 'wm-xs', 'wm-xxs'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

/** What runs beside the control loop by default: small enough to train on one core of a laptop. */
export const DEFAULT_LIVE_PRESET: PresetName = 'wm-xs';

export const worldModelConfigSchema = z.object({
  preset: z.enum(PRESET_NAMES),
  /** The fused embedding from perception. */
  embeddingSize: z.number().int().min(1),
  /** Drive command: forward speed and turn rate, each scaled to [−1, 1] by the action limits. */
  actionSize: z.number().int().min(1),
  /** What an action of magnitude 1 means in the robot's units (the safety filter's speed limits). */
  actionLimits: z.array(z.number().positive()),
  /** The GRU's deterministic state. */
  deterministicSize: z.number().int().min(1),
  /** The stochastic state: this many categorical variables of `classes` classes each. */
  stochasticGroups: z.number().int().min(1),
  classes: z.number().int().min(2),
  /** Width of every MLP's hidden layer. */
  hiddenSize: z.number().int().min(1),
  /** Mixed into every categorical so no class has probability zero (DreamerV3: 1%). */
  uniformMix: z.number().min(0).max(1),
  /** KL below this many nats per tick is not penalised (free bits). */
  freeNats: z.number().min(0),
  /** KL balancing: the prior moves toward the posterior fast, the posterior toward the prior slowly. */
  dynamicsScale: z.number().min(0),
  representationScale: z.number().min(0),
  learningRate: z.number().positive(),
  /** Global gradient norm above which gradients are scaled down. */
  clipGradNorm: z.number().positive(),
  layerNormEpsilon: z.number().positive(),
  /**
   * Off (absent) by default. The sizes of consecutive groups of the embedding (e.g. its slots: camera,
   * LiDAR, proprioception, liveness, flags) that weigh equally in the decoder's loss, instead of every
   * dimension equally (where the camera's 160 of 256 floats make most of it). Measured for issue 30
   * in docs/worldmodel.md.
   */
  decoderGroupSizes: z.array(z.number().int().min(1)).min(1).optional(),
});

export type WorldModelConfig = z.infer<typeof worldModelConfigSchema>;

const SHARED: Omit<WorldModelConfig, 'preset' | 'deterministicSize' | 'stochasticGroups' | 'classes' | 'hiddenSize'> = {
  embeddingSize: 256,
  actionSize: 2,
  /** m/s forward, rad/s turning: the safety filter's default limits. */
  actionLimits: [0.5, 1.5],
  uniformMix: 0.01,
  freeNats: 1,
  dynamicsScale: 0.5,
  representationScale: 0.1,
  learningRate: 1e-4,
  clipGradNorm: 1000,
  layerNormEpsilon: 1e-5,
};

export const WORLD_MODEL_PRESETS: Readonly<Record<PresetName, WorldModelConfig>> = Object.freeze({
  'wm-s': { preset: 'wm-s', ...SHARED, deterministicSize: 512, stochasticGroups: 32, classes: 16, hiddenSize: 512 },
  'wm-xs': { preset: 'wm-xs', ...SHARED, deterministicSize: 256, stochasticGroups: 16, classes: 16, hiddenSize: 256, learningRate: 3e-4 },
  'wm-xxs': { preset: 'wm-xxs', ...SHARED, deterministicSize: 128, stochasticGroups: 8, classes: 8, hiddenSize: 128, learningRate: 3e-4 },
});

/** A preset with some fields replaced (the embedding size follows the encoders); validated. */
export function worldModelConfig(preset: PresetName, overrides: Partial<Omit<WorldModelConfig, 'preset'>> = {}): WorldModelConfig {
  const base = WORLD_MODEL_PRESETS[preset];
  if (base === undefined) throw new RangeError(`unknown world-model preset "${String(preset)}"; presets: ${PRESET_NAMES.join(', ')}`);
  const config = worldModelConfigSchema.parse({ ...base, ...overrides });
  if (config.actionLimits.length !== config.actionSize)
    throw new RangeError(`world model: ${config.actionLimits.length} action limits for ${config.actionSize} action dimensions`);
  const grouped = config.decoderGroupSizes?.reduce((sum, size) => sum + size, 0);
  if (grouped !== undefined && grouped !== config.embeddingSize)
    throw new RangeError(`world model: decoder groups of ${grouped} floats in all for an embedding of ${config.embeddingSize}`);
  return config;
}

/**
 * Each embedding dimension's weight in the decoder's loss: 1 each without groups; with groups, a
 * dimension of a group of n weighs E / (G·n), so every group counts alike and the weights still sum to E.
 */
export function decoderWeights(config: WorldModelConfig): Float32Array | undefined {
  const groups = config.decoderGroupSizes;
  if (groups === undefined) return undefined;
  const weights = new Float32Array(config.embeddingSize);
  let offset = 0;
  for (const size of groups) {
    weights.fill(config.embeddingSize / (groups.length * size), offset, offset + size);
    offset += size;
  }
  return weights;
}

/** Size of the stochastic state as one flat vector. */
export function stochasticSize(config: WorldModelConfig): number {
  return config.stochasticGroups * config.classes;
}

/** What the heads read: the deterministic state beside the stochastic one. */
export function featureSize(config: WorldModelConfig): number {
  return config.deterministicSize + stochasticSize(config);
}
