import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorShape, initialActorWeights } from './actor.ts';
import { CriticEnsemble, DEFAULT_CRITIC_OPTIONS } from './criticEnsemble.ts';
import { evaluateCandidate, type GateInputs } from './promotionGate.ts';

const FEATURES = 4;
const OPTIONS = { ...DEFAULT_CRITIC_OPTIONS, critics: 2, hidden: 8, actionRepeat: 2 };

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe('the promotion gate', () => {
  const evaluator = new CriticEnsemble(FEATURES, OPTIONS, 1, 'evaluation');
  const critics = new CriticEnsemble(FEATURES, OPTIONS, 1);
  const features = tf.randomNormal([200, FEATURES], 0, 1, 'float32', 3) as tf.Tensor2D;
  const shape = actorShape(FEATURES, 8, 1);
  const candidate = initialActorWeights(shape, 1);
  const other = initialActorWeights(shape, 2);
  // The evaluation critic made to prefer forward speed: Q = 10 × the action's first component.
  const forwardPreferring = new CriticEnsemble(FEATURES, { ...OPTIONS, layers: 1 }, 4, 'evaluation');
  beforeAll(() => {
    tf.tidy(() => {
      const [weight, bias, gain, shift, head, headBias] = forwardPreferring.online[0]!;
      // Hidden unit 0 reads the first action input; layer norm then SiLU keep it rising with it.
      const w = tf.buffer(weight!.shape as [number, number]);
      w.set(1, FEATURES, 0);
      w.set(-1, FEATURES, 1);
      weight!.assign(w.toTensor());
      bias!.assign(tf.zeros(bias!.shape));
      gain!.assign(tf.ones(gain!.shape));
      shift!.assign(tf.zeros(shift!.shape));
      const h = tf.buffer(head!.shape as [number, number]);
      h.set(10, 0, 0);
      head!.assign(h.toTensor());
      headBias!.assign(tf.zeros(headBias!.shape));
    });
  });
  afterAll(() => {
    [evaluator, critics, forwardPreferring].forEach((ensemble) => ensemble.dispose());
    tf.dispose([features, ...candidate, ...other]);
  });
  const inputs = (overrides: Partial<GateInputs> = {}): GateInputs => ({
    evaluator,
    critics,
    features,
    candidate,
    driving: other,
    heldOutAnswers: { right: 0, judged: 0 },
    ...overrides,
  });
  const withBias = (weights: readonly tf.Tensor[], forward: number) =>
    weights.map((weight, index) => (index === weights.length - 1 ? tf.tensor1d([forward, 0, -4, -4]) : tf.clone(weight)));

  it('promotes a candidate that is the driving version itself, and one when no learned version drives', () => {
    expect(evaluateCandidate(inputs({ driving: candidate })).verdict).toBe('promote');
    const first = evaluateCandidate(inputs({ driving: undefined }));
    expect(first).toMatchObject({ verdict: 'promote', reason: 'no learned version drives to compare with' });
  });

  it('refuses a candidate the evaluation critic rates worse, and promotes one it rates better', () => {
    const slow = withBias(candidate, -2);
    const fast = withBias(candidate, 2);
    try {
      const worse = evaluateCandidate(inputs({ evaluator: forwardPreferring, candidate: slow, driving: fast }));
      expect(worse.verdict).toBe('refuse');
      expect(worse.candidateValue).toBeLessThan(worse.drivingValue);
      expect(worse.reason).toMatch(/possibly worse than the driving version on 200 recent ticks/);
      expect(evaluateCandidate(inputs({ evaluator: forwardPreferring, candidate: fast, driving: slow })).verdict).toBe('promote');
    } finally {
      tf.dispose([...slow, ...fast]);
    }
  });

  it.each([
    ['NaN', Number.NaN],
    ['beyond 1e6', 1e7],
  ])('blocks every candidate when a critic has diverged (%s)', (_name, value) => {
    const diverged = new CriticEnsemble(FEATURES, OPTIONS, 5);
    try {
      tf.tidy(() => diverged.online[1]!.at(-1)!.assign(tf.fill(diverged.online[1]!.at(-1)!.shape, value)));
      const verdict = evaluateCandidate(inputs({ critics: diverged, driving: candidate }));
      expect(verdict).toMatchObject({ verdict: 'blocked' });
      expect(verdict.reason).toMatch(/the critics have diverged/);
    } finally {
      diverged.dispose();
    }
  });

  it('blocks when the reward ensemble gets fewer than 60 % of the held-out answers right, once there are 5', () => {
    expect(evaluateCandidate(inputs({ driving: candidate, heldOutAnswers: { right: 2, judged: 5 } }))).toMatchObject({
      verdict: 'blocked',
      reason: expect.stringMatching(/gets only 2 of 5 of your earlier answers right/),
    });
    expect(evaluateCandidate(inputs({ driving: candidate, heldOutAnswers: { right: 3, judged: 5 } })).verdict).toBe('promote');
    expect(evaluateCandidate(inputs({ driving: candidate, heldOutAnswers: { right: 0, judged: 4 } })).verdict).toBe('promote');
  });
});
