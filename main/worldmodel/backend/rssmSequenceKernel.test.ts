import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
// The world model's own import; it also registers tfjs-core's gradients.
import '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { nativeBlasForTests, seededFloats } from '../../../test/support/nativeBlasForTests.ts';
import { observeSequence, RSSM_OBSERVE_SEQUENCE, sequenceWeightInputs } from '../observeSequence.ts';
import { Rssm, type TrainingBatch } from '../rssm.ts';
import { disposeWeights, initialWeights, namedWeights } from '../rssmWeights.ts';
import { stochasticSize, worldModelConfig, type WorldModelConfig } from '../worldModelConfig.ts';
import { WorldModelTrainer } from '../worldModelTrainer.ts';
import { NATIVE_BACKEND_NAME, registerNativeBackend } from './nativeBackend.ts';
import { RSSM_OBSERVE_SEQUENCE_GRAD } from './rssmSequenceKernel.ts';
import { SEQUENCE_INPUT_NAMES, SEQUENCE_WEIGHT_NAMES } from './rssmSequenceShapes.ts';

const blas = nativeBlasForTests();

interface Case {
  config: WorldModelConfig;
  batch: number;
  length: number;
}

const sized = (sizes: Partial<WorldModelConfig>) => worldModelConfig('wm-xxs', { actionSize: 2, actionLimits: [1, 1], ...sizes });
const TINY: Case = { config: sized({ embeddingSize: 6, deterministicSize: 8, stochasticGroups: 3, classes: 4, hiddenSize: 8 }), batch: 3, length: 5 };
const MEDIUM: Case = { config: sized({ embeddingSize: 24, deterministicSize: 32, stochasticGroups: 4, classes: 8, hiddenSize: 40 }), batch: 4, length: 12 };

type Numbers = Record<string, number[]>;

/** A case's weights (gains and shifts away from 1 and 0, so their gradients count), inputs and a loss's coefficients, on the current backend. */
function setUp({ config, batch, length }: Case) {
  const rows = batch * length;
  const size = stochasticSize(config);
  const weights = initialWeights(config, 3);
  for (const [name, variable] of namedWeights(weights)) {
    const values = seededFloats(variable.size, name.length * 31 + variable.size);
    const scaled = /gain/.test(name) ? values.map((v) => 1 + 0.3 * v) : values.map((v) => 0.5 * v);
    variable.assign(tf.tensor(scaled, variable.shape));
  }
  const coefficients = (width: number, seed: number) => tf.tensor2d(seededFloats(rows * width, seed), [rows, width]);
  return {
    weights,
    embeddings: tf.variable(tf.tensor2d(seededFloats(rows * config.embeddingSize, 7), [rows, config.embeddingSize])),
    previousActions: tf.variable(tf.tensor2d(seededFloats(rows * config.actionSize, 8), [rows, config.actionSize])),
    noise: tf.tensor2d(
      seededFloats(rows * size, 9).map((v) => 0.5 + 0.4999 * v),
      [rows * config.stochasticGroups, config.classes],
    ),
    forDeterministic: coefficients(config.deterministicSize, 10),
    forStochastic: coefficients(size, 11),
    forPosterior: coefficients(size, 12),
  };
}

function tearDown({ weights, ...tensors }: ReturnType<typeof setUp>): void {
  tf.dispose(Object.values(tensors));
  disposeWeights(weights);
}

/** What one backend computes: the three outputs, and a random linear functional's gradients. */
async function observeOn(backend: string, testCase: Case, reads: 'all' | 'posterior'): Promise<{ outputs: Numbers; grads: Numbers }> {
  await tf.setBackend(backend);
  const { config, batch, length } = testCase;
  const made = setUp(testCase);
  const { weights, embeddings, previousActions, noise, forDeterministic, forStochastic, forPosterior } = made;
  const named = { ...sequenceWeightInputs(weights), embeddings, previousActions };
  const outputs: Numbers = {};
  const { grads } = tf.variableGrads(() => {
    const sequence = observeSequence(weights, config, { batch, length, embeddings, previousActions, noise });
    for (const [name, tensor] of Object.entries(sequence)) outputs[name] = [...tensor.dataSync()];
    const posterior = tf.sum(tf.mul(sequence.posterior, forPosterior));
    if (reads === 'posterior') return posterior as tf.Scalar;
    return tf.addN([tf.sum(tf.mul(sequence.deterministic, forDeterministic)), tf.sum(tf.mul(sequence.stochastic, forStochastic)), posterior]) as tf.Scalar;
  }, Object.values(named));
  const byName = Object.fromEntries(
    Object.entries(named).map(([name, variable]) => [name, [...(grads[variable.name]?.dataSync() ?? new Float32Array(variable.size))]]),
  );
  tf.dispose(Object.values(grads));
  tearDown(made);
  return { outputs, grads: byName };
}

/** The gradient kernel run on its own, with no forward run kept for it: it recomputes the forward. */
async function gradientKernelAlone(testCase: Case): Promise<Numbers> {
  await tf.setBackend(NATIVE_BACKEND_NAME);
  const { config, batch, length } = testCase;
  const made = setUp(testCase);
  const inputs = {
    ...sequenceWeightInputs(made.weights),
    embeddings: made.embeddings,
    previousActions: made.previousActions,
    noise: made.noise,
    dPosterior: made.forPosterior,
  };
  const attrs = { batch, length, classes: config.classes, uniformMix: config.uniformMix, layerNormEpsilon: config.layerNormEpsilon };
  const grads = tf.engine().runKernel(RSSM_OBSERVE_SEQUENCE_GRAD, inputs, attrs) as tf.Tensor[];
  const byName = Object.fromEntries(
    SEQUENCE_INPUT_NAMES.filter((name) => name !== 'noise').map((name) => [name, [...grads[SEQUENCE_INPUT_NAMES.indexOf(name)]!.dataSync()]]),
  );
  tf.dispose(grads);
  tearDown(made);
  return byName;
}

/** Largest difference, relative to the reference's largest magnitude. */
function relativeError(actual: number[], reference: number[]): number {
  const scale = Math.max(1e-12, ...reference.map(Math.abs));
  return Math.max(0, ...actual.map((value, i) => Math.abs(value - reference[i]!))) / scale;
}

function expectClose(actual: Numbers, reference: Numbers, tolerance: number): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(reference).sort());
  const errors = Object.fromEntries(Object.keys(reference).map((name) => [name, relativeError(actual[name]!, reference[name]!)]));
  const over = Object.entries(errors).filter(([, error]) => !(error < tolerance));
  expect(over, `relative errors over ${tolerance}`).toEqual([]);
}

/** A small replayed batch with every loss term active. */
function trainingBatch(config: WorldModelConfig, batch: number, length: number): TrainingBatch {
  const rows = batch * length;
  return {
    batch,
    length,
    embeddings: seededFloats(rows * config.embeddingSize, 21),
    previousActions: seededFloats(rows * config.actionSize, 22),
    rewards: seededFloats(rows, 23),
    rewardKnown: new Float32Array(rows).fill(1),
    continues: seededFloats(rows, 24).map((v) => (v > -0.8 ? 1 : 0)),
  };
}

async function trainOneStep(backend: string, config: WorldModelConfig, batch: TrainingBatch) {
  await tf.setBackend(backend);
  const tensorsBefore = tf.memory().numTensors;
  const rssm = new Rssm(config, 5);
  const before = namedWeights(rssm.weights).map(([, variable]) => [...variable.dataSync()]);
  const trainer = new WorldModelTrainer(rssm);
  const figures = trainer.step(batch);
  const moves = namedWeights(rssm.weights).map(([, variable], index) => [...variable.dataSync()].map((value, i) => value - before[index]![i]!));
  trainer.dispose();
  disposeWeights(rssm.weights);
  return { figures, moves: moves.flat(), leakedTensors: tf.memory().numTensors - tensorsBefore };
}

describe.skipIf(!blas)("the fused RSSM sequence kernel on the 'native' backend", () => {
  beforeAll(async () => {
    registerNativeBackend(blas!);
    await tf.setBackend(NATIVE_BACKEND_NAME);
  });

  it('takes the weights observeSequence passes, by name', () => {
    const weights = initialWeights(TINY.config, 1);
    expect(Object.keys(sequenceWeightInputs(weights))).toEqual([...SEQUENCE_WEIGHT_NAMES]);
    expect(tf.getKernel(RSSM_OBSERVE_SEQUENCE, NATIVE_BACKEND_NAME)).toBeDefined();
    expect(tf.getKernel(RSSM_OBSERVE_SEQUENCE, 'cpu')).toBeUndefined();
    disposeWeights(weights);
  });

  it.each([
    ['tiny', TINY],
    ['medium', MEDIUM],
  ])('filters a %s batch as the taped ops do, and differentiates alike', async (_, testCase) => {
    const fused = await observeOn(NATIVE_BACKEND_NAME, testCase, 'all');
    const taped = await observeOn('cpu', testCase, 'all');
    // Same noise, same draws: the one-hot samples agree exactly.
    expect(fused.outputs.stochastic).toEqual(taped.outputs.stochastic);
    expectClose(fused.outputs, taped.outputs, 1e-5);
    expectClose(fused.grads, taped.grads, 1e-4);
  });

  it('differentiates a loss that reads only the posterior (the others get zero gradients)', async () => {
    const fused = await observeOn(NATIVE_BACKEND_NAME, MEDIUM, 'posterior');
    const taped = await observeOn('cpu', MEDIUM, 'posterior');
    expectClose(fused.grads, taped.grads, 1e-4);
  });

  it('recomputes the forward when the gradient kernel runs without a kept forward', async () => {
    const alone = await gradientKernelAlone(MEDIUM);
    const taped = await observeOn('cpu', MEDIUM, 'posterior');
    expectClose(alone, taped.grads, 1e-4);
  });

  it('rejects element-wise arrays too short for their shapes, instead of writing past them', () => {
    const short = new Float32Array(3);
    const enough = new Float32Array(64);
    expect(() => blas!.gruCell(enough, enough, undefined, 2, 4, enough, enough, enough, short, enough)).toThrow(
      /gruCell: hiddenCandidate has 3 elements but the shapes need at least 8/,
    );
    expect(() => blas!.layerNormSilu(enough, new Float32Array(8), short, 1e-5, 2, enough, enough, enough, enough, enough)).toThrow(RangeError);
    expect(() => blas!.categoricalDraw(new Float32Array(8), short, 4, 0.01, enough, enough, enough)).toThrow(/categoricalDraw: noise has 3 elements/);
  });

  it('takes the same training step as the taped recurrence', async () => {
    const config = sized({ embeddingSize: 12, deterministicSize: 16, stochasticGroups: 4, classes: 4, hiddenSize: 16 });
    const batch = trainingBatch(config, 3, 6);
    const fused = await trainOneStep(NATIVE_BACKEND_NAME, config, batch);
    const taped = await trainOneStep('cpu', config, batch);
    for (const term of ['total', 'decoder', 'reward', 'continuation', 'klNats', 'gradNorm'] as const) {
      expect(fused.figures[term]).toBeCloseTo(taped.figures[term], 4);
    }
    // Adam's first step moves each weight by about ±lr: compare the moves, not just the weights.
    // The fused kernel holds no tensor the taped recurrence does not.
    expect(fused.leakedTensors).toBe(taped.leakedTensors);
    const difference = Math.hypot(...fused.moves.map((move, i) => move - taped.moves[i]!));
    expect(difference / Math.hypot(...taped.moves)).toBeLessThan(1e-2);
  });
});
