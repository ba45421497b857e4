import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLearnerBackend } from '../worldmodel/learner/learnerBackend.ts';
import { SeededRandom } from '../core/util/seededRandom.ts';
import { ActorTrainer } from './actorTraining.ts';
import { CriticEnsemble, checkCriticOptions, criticValueOfRow, DEFAULT_CRITIC_OPTIONS, type CriticOptions } from './criticEnsemble.ts';
import { NO_FEEDBACK, type FeedbackSignals } from './feedbackTypes.ts';
import { OffPolicyUpdates, type OffPolicyRound } from './offPolicyUpdates.ts';
import { DEFAULT_POLICY_LEARNER_OPTIONS, learnerOverrides } from './policyLearner.ts';
import { TickBuffer } from './tickBuffer.ts';

const STEPS = 3;
const LIMITS = [0.5, 1.5] as const;

/** Episodes of three ticks, each tick's embedding one-hot in its step, every one ending with the goal reached. */
function chain(episodes: number): { buffer: TickBuffer; signals: FeedbackSignals } {
  const buffer = new TickBuffer(episodes * STEPS, STEPS);
  const ends: NonNullable<FeedbackSignals['episodes']>[number][] = [];
  for (let episode = 0; episode < episodes; episode++) {
    for (let step = 0; step < STEPS; step++) {
      const embedding = new Float32Array(STEPS);
      embedding[step] = 1;
      buffer.add({
        episodeId: `e${episode}`,
        step,
        embedding,
        action: { linearMps: 0.25, angularRadps: 0 },
        driver: episode % 2 === 0 ? 'operator' : 'policy',
      });
    }
    ends.push({ episodeId: `e${episode}`, outcome: 'reached-goal' });
  }
  return { buffer, signals: { ...NO_FEEDBACK, episodes: ends } };
}

const CHAIN_CRITICS: CriticOptions = {
  ...DEFAULT_CRITIC_OPTIONS,
  critics: 2,
  hidden: 32,
  actionRepeat: 2,
  learningRate: 1e-2,
  discount: 0.9,
  nStep: 1,
  targetRate: 0.2,
  batch: 32,
  rewardWeight: 0,
  successReward: 1,
  initialTemperature: 1e-4,
};

function roundOf(updates: OffPolicyUpdates, buffer: TickBuffer, signals: FeedbackSignals): OffPolicyRound {
  return {
    index: updates.begin(
      buffer.slotsWhere(() => true),
      signals,
    ),
    beforeTakeover: new Set(),
    features: (slots) => tf.tensor2d(buffer.gather(slots), [slots.length, buffer.embeddingSize]),
    current: () => true,
    reward: undefined,
    learnedRewards: new Map(),
  };
}

// The policy worker's backend (the native one where it loads): 400 updates take seconds there, not half a minute.
beforeAll(async () => {
  await loadLearnerBackend();
});

describe('the off-policy critics', () => {
  const { buffer, signals } = chain(20);
  const random = new SeededRandom(5);
  const actor = new ActorTrainer(buffer, { ...DEFAULT_POLICY_LEARNER_OPTIONS, limits: LIMITS }, 1, random);
  const updates = OffPolicyUpdates.create(buffer, CHAIN_CRITICS, 1, random, LIMITS);
  afterAll(() => {
    updates.dispose();
    actor.dispose();
  });

  it('learn the discounted value of reaching the goal, step by step (γ^(2−k))', () => {
    const round = roundOf(updates, buffer, signals);
    for (let update = 0; update < 400; update++) updates.criticStep(round, actor.weights);
    const slots = Array.from({ length: STEPS }, (_, step) => buffer.slotOf('e0', step)!);
    const values = tf.tidy(() => Array.from(updates.critics.minimum(round.features(slots), updates.actionsAt(slots)).dataSync()));
    values.forEach((value, step) => expect(value).toBeCloseTo(0.9 ** (STEPS - 1 - step), 1));
    expect(updates.critics.updates).toBe(400);
  }, 60_000);

  it('value the command an operator overrode one takeover below the operator’s own, on the same state', () => {
    // Episodes of three ticks: the policy drives forward at step 0, the operator takes over at step 1,
    // turning in place, and reaches the goal at step 2.
    const episodes = 20;
    const taken = new TickBuffer(episodes * STEPS, STEPS);
    const interventions: FeedbackSignals['interventions'][number][] = [];
    for (let episode = 0; episode < episodes; episode++) {
      for (let step = 0; step < STEPS; step++) {
        const embedding = new Float32Array(STEPS);
        embedding[step] = 1;
        const driver = step === 0 ? 'policy' : 'operator';
        taken.add({
          episodeId: `t${episode}`,
          step,
          embedding,
          action: driver === 'policy' ? { linearMps: 0.5, angularRadps: 0 } : { linearMps: 0, angularRadps: 1.5 },
          driver,
        });
      }
      interventions.push({
        id: `i${episode}`,
        atStep: 1,
        episodeId: `t${episode}`,
        policySegment: { episodeId: `t${episode}`, startStep: 0, endStep: 0 },
        operatorSegment: { episodeId: `t${episode}`, startStep: 1, endStep: STEPS - 1 },
      });
    }
    const takenSignals: FeedbackSignals = {
      ...NO_FEEDBACK,
      interventions,
      episodes: interventions.map(({ episodeId }) => ({ episodeId, outcome: 'reached-goal' })),
    };
    const paired = OffPolicyUpdates.create(
      taken,
      { ...CHAIN_CRITICS, overriddenPairTicks: 1, overriddenPairShare: 0.25, interventionCost: 1 },
      3,
      new SeededRandom(2),
      LIMITS,
    );
    try {
      const round = roundOf(paired, taken, takenSignals);
      expect(round.index.overriddenPairs).toHaveLength(episodes);
      for (let update = 0; update < 400; update++) paired.criticStep(round, actor.weights);
      const state = [taken.slotOf('t0', 1)!];
      const [operator, overridden] = tf.tidy(() => [
        paired.critics.minimum(round.features(state), paired.actionsAt(state)).dataSync()[0]!,
        paired.critics.minimum(round.features(state), paired.actionsAt([taken.slotOf('t0', 0)!])).dataSync()[0]!,
      ]);
      // Both bootstrap from the same next state; the overridden command is charged the takeover it brought.
      expect(operator - overridden).toBeCloseTo(1, 1);
    } finally {
      paired.dispose();
    }
  }, 60_000);

  it('with weight decay, end with smaller weight matrices than the same critics without it', () => {
    const norms = (weightDecay: number) => {
      const critics = new CriticEnsemble(STEPS, { ...CHAIN_CRITICS, weightDecay }, 4);
      try {
        const x = tf.eye(STEPS) as tf.Tensor2D;
        const actions = tf.zeros([STEPS, 2]) as tf.Tensor2D;
        const targets = tf.tensor1d([1, 2, 3]);
        for (let step = 0; step < 50; step++) critics.update(x, actions, targets);
        tf.dispose([x, actions, targets]);
        return tf.tidy(() => critics.online[0]!.filter((weight) => weight.rank === 2).map((weight) => tf.norm(weight).dataSync()[0]!));
      } finally {
        critics.dispose();
      }
    };
    const plain = norms(0);
    const decayed = norms(5);
    decayed.forEach((norm, index) => expect(norm).toBeLessThan(plain[index]!));
  });

  it('owe one update per new transition, spread over the round', () => {
    const fresh = OffPolicyUpdates.create(buffer, { ...CHAIN_CRITICS, updatesPerTransition: 0.5 }, 2, new SeededRandom(1), LIMITS);
    try {
      fresh.begin(
        buffer.slotsWhere(() => true),
        signals,
      );
      // 60 ticks at ½ an update each: 30 owed, over 10 actor steps.
      expect(fresh.dueNow(10)).toBe(3);
      expect(fresh.dueNow(0)).toBe(0);
      fresh.begin(
        buffer.slotsWhere(() => true),
        signals,
      );
      expect(fresh.dueNow(1)).toBe(30);
    } finally {
      fresh.dispose();
    }
  });

  it('a critic holding NaN moves nothing: its step and the actor step are skipped, every weight stays finite', () => {
    const { buffer: ticks, signals: ends } = chain(4);
    const trainer = new ActorTrainer(ticks, { ...DEFAULT_POLICY_LEARNER_OPTIONS, limits: LIMITS }, 2, new SeededRandom(2));
    const broken = OffPolicyUpdates.create(ticks, { ...CHAIN_CRITICS, warmupUpdates: 0 }, 3, new SeededRandom(3), LIMITS);
    try {
      tf.tidy(() => broken.critics.online[0]![0]!.assign(tf.fill(broken.critics.online[0]![0]!.shape, Number.NaN)));
      const before = trainer.weights.map((weight) => Array.from(weight.dataSync()));
      const round = roundOf(broken, ticks, ends);
      broken.criticStep(round, trainer.weights);
      expect(broken.figures().loss).toBeNaN();
      const operatorSlots = ticks.slotsWhere((driver) => driver === 'operator');
      const loss = broken.actorStep(round, trainer, { slots: operatorSlots, weights: operatorSlots.map(() => 1) });
      expect(loss).toBeNaN();
      trainer.weights.forEach((weight, index) => expect(Array.from(weight.dataSync())).toEqual(before[index]));
      for (const weight of broken.critics.online[1]!) expect(weight.dataSync().every(Number.isFinite)).toBe(true);
    } finally {
      broken.dispose();
      trainer.dispose();
    }
  });
});

describe('the entropy temperature', () => {
  it('is left as it is by log-probabilities that are not finite', () => {
    const critics = new CriticEnsemble(STEPS, CHAIN_CRITICS, 8);
    try {
      const before = critics.temperature;
      const logProb = tf.tensor1d([0.5, Number.NaN]);
      critics.tuneTemperature(logProb);
      logProb.dispose();
      expect(critics.temperature).toBe(before);
      const finite = tf.tensor1d([5, 5]);
      critics.tuneTemperature(finite);
      finite.dispose();
      expect(Number.isFinite(critics.temperature)).toBe(true);
      expect(critics.temperature).not.toBe(before);
    } finally {
      critics.dispose();
    }
  });
});

describe("the critics' value of one row (what the cockpit shows)", () => {
  it('equals the ensemble through TF.js: mean and spread of the critics, the action clipped to ±1', () => {
    const critics = new CriticEnsemble(STEPS, { ...CHAIN_CRITICS, critics: 3 }, 9);
    try {
      const features = Float32Array.of(0.3, -1.2, 0.5);
      const expected = tf.tidy(() =>
        critics.onlineValues(tf.tensor2d(features, [1, STEPS]), tf.tensor2d([0.4, -1], [1, 2])).map((values) => values.dataSync()[0]!),
      );
      const mean = expected.reduce((a, b) => a + b, 0) / 3;
      const spread = Math.sqrt(expected.reduce((sum, v) => sum + (v - mean) ** 2, 0) / 3);
      const row = criticValueOfRow(critics.weightsOf(), critics.shape, CHAIN_CRITICS.actionRepeat, features, [0.4, -1.7]);
      expect(row.value).toBeCloseTo(mean, 4);
      expect(row.spread).toBeCloseTo(spread, 4);
    } finally {
      critics.dispose();
    }
  });
});

describe('critic settings', () => {
  it('refuse one critic, a discount of 1, a negative cost and a fraction of a critic, naming the setting', () => {
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, critics: 1 })).toThrow(/at least 2 critics/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, discount: 1 })).toThrow(/discount/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, interventionCost: -1 })).toThrow(/interventionCost/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, critics: 2.5 })).toThrow(/critics must be a whole number/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, overriddenPairShare: 1 })).toThrow(/overriddenPairShare/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, weightDecay: -0.1 })).toThrow(/weightDecay/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, learningRate: 0.1, weightDecay: 10 })).toThrow(/weightDecay × learningRate/);
    expect(() => checkCriticOptions({ ...DEFAULT_CRITIC_OPTIONS, overriddenPairTicks: -1 })).toThrow(/overriddenPairTicks/);
  });

  it('--learner: an unknown setting, a value of the wrong kind and a bad critic setting are refused', () => {
    expect(() => learnerOverrides({ critc: {} })).toThrow(/unknown setting "critc"/);
    expect(() => learnerOverrides({ hidden: '128' })).toThrow(/hidden must be a number/);
    expect(() => learnerOverrides({ critic: { critics: 3, nStep: 0 } })).toThrow(/nStep/);
    expect(() => learnerOverrides({ critic: { cost: 1 } })).toThrow(/unknown critic setting "cost"/);
    expect(learnerOverrides({ critic: { critics: 2 }, referenceWeight: 0 })).toEqual({ critic: { critics: 2 }, referenceWeight: 0 });
  });
});
