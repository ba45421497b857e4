import type { Policy } from '../core/policy.ts';
import type { TickReport, Driver, SentCommand } from '../core/tickReport.ts';
import { describe, expect, it } from 'vitest';
import type { FeedbackSignals, Segment } from './feedbackTypes.ts';
import { LearningSession, type LearningLoop } from './learningSession.ts';
import { ReactiveBaselinePolicy } from './reactiveBaselinePolicy.ts';
import type { LearningTick, PolicyCandidate, PolicyImprover, RetrainOutcome } from './policyImprover.ts';
import { SlowPath } from './slowPath.ts';

/** The loop as the session sees it: ticks pushed by the test, the policy it was told to drive. */
function loopForTest() {
  const listeners = new Set<(report: TickReport) => void>();
  let autonomy = true;
  let nowMs = 0;
  const loop: LearningLoop & { policy: Policy | undefined } = {
    policy: undefined,
    onTick: (listener) => (listeners.add(listener), () => listeners.delete(listener)),
    setPolicy(policy) {
      this.policy = policy;
    },
  };
  let step = 0;
  const tick = (driver: Driver, count = 1, values: readonly number[] = [0, 0]) => {
    for (let i = 0; i < count; i++) {
      nowMs += 100;
      const report: TickReport = {
        frame: { timeMs: nowMs, missing: [] },
        embedding: { values: Float32Array.from(values), mask: { camera: true, lidar: true, proprio: true } },
        belief: undefined,
        driver,
        sent: undefined,
        durationMs: 1,
        policyVersion: loop.policy?.version ?? 'v1',
        autonomous: autonomy,
        commandInEffect: undefined,
        worldModelVersion: undefined,
        episode: { index: 0, step: step++ },
      };
      for (const listener of listeners) listener(report);
    }
  };
  return { loop, tick, now: () => nowMs, setAutonomy: (on: boolean) => (autonomy = on) };
}

/** A learner that offers a new version each time it is told about feedback with an intervention in it. */
class VersionPerIntervention implements PolicyImprover {
  observed = 0;
  seen: FeedbackSignals[] = [];
  private readonly listeners = new Set<(candidate: PolicyCandidate) => void>();
  private offered = 0;
  observe(): void {
    this.observed++;
  }
  disagreement(a: Segment, b: Segment): number {
    return Math.abs(a.startStep - b.startStep);
  }
  rewardEstimate(): undefined {
    return undefined;
  }
  feedbackChanged(signals: FeedbackSignals): void {
    this.seen.push(signals);
    if (signals.interventions.length > this.offered) {
      this.offered = signals.interventions.length;
      const policy: Policy = { version: `learned-${this.offered}`, act: () => ({ linearMps: 0, angularRadps: 0 }) };
      for (const listener of this.listeners) listener({ policy, trainedOn: { interventions: this.offered, preferences: 0, ratings: 0, operatorTicks: 5 } });
    }
  }
  onCandidate(listener: (candidate: PolicyCandidate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  async close(): Promise<void> {}
}

/** A learner whose reward ensemble's spread on a tick is the tick's first embedding value, taught where it is 0.1. */
class SpreadInTheEmbedding extends VersionPerIntervention {
  scored = 0;
  rewardUncertainty(embedding: Float32Array): { mean: number; spread: number } {
    this.scored++;
    return { mean: 0, spread: embedding[0]! };
  }
  taughtRewardSpread(): number {
    return 0.1;
  }
}

describe('LearningSession', () => {
  it('teaches an operator’s tick with the command the operator gave after seeing it, not the one it was given before', () => {
    const listeners = new Set<(report: TickReport) => void>();
    const loop: LearningLoop = { onTick: (listener) => (listeners.add(listener), () => listeners.delete(listener)), setPolicy: () => undefined };
    const observed: LearningTick[] = [];
    const improver = new (class extends VersionPerIntervention {
      override observe(tick?: LearningTick): void {
        if (tick) observed.push(tick);
      }
    })();
    new LearningSession({ loop, initialPolicy: new ReactiveBaselinePolicy(), improver, episodeId: 'e', autoPromote: true });
    const command = (linearMps: number, driver: Driver): SentCommand => ({
      command: { linearMps, angularRadps: 0 },
      requested: { linearMps, angularRadps: 0 },
      clipped: false,
      driver,
      atMs: 0,
      delivered: true,
    });
    // The command in effect at each tick: the operator's 0.1 before tick 0 (its answer to what came before),
    // 0.2 after seeing tick 0, 0.3 after tick 1; then the policy drives (0.4), then the next episode.
    const ticks: Array<[Driver, number, number, number]> = [
      ['operator', 0.1, 0, 0],
      ['operator', 0.2, 0, 1],
      ['operator', 0.3, 0, 2],
      ['policy', 0.4, 0, 3],
      ['operator', 0.5, 0, 4],
      ['operator', 0.6, 1, 0],
    ];
    for (const [driver, linearMps, index, step] of ticks) {
      const report: TickReport = {
        frame: { timeMs: step * 100, missing: [] },
        embedding: { values: Float32Array.from([step]), mask: { camera: true, lidar: true, proprio: true } },
        belief: undefined,
        driver,
        sent: undefined,
        durationMs: 1,
        policyVersion: 'v1',
        autonomous: true,
        commandInEffect: command(linearMps, driver),
        worldModelVersion: undefined,
        episode: { index, step },
      };
      for (const listener of listeners) listener(report);
    }
    expect(observed.map((tick) => [tick.episodeId, tick.step, tick.driver, tick.action.linearMps])).toEqual([
      ['e', 0, 'operator', 0.2],
      ['e', 1, 'operator', 0.3],
      // The operator's last tick before the policy drove again: no response of the operator's follows it.
      ['e', 2, 'operator', 0.3],
      ['e', 3, 'policy', 0.4],
      // Nothing joins ticks across an episode's end.
      ['e', 4, 'operator', 0.5],
    ]);
  });

  it('records feedback without a learner and says learning is off', () => {
    const { loop, tick } = loopForTest();
    const session = new LearningSession({ loop, initialPolicy: new ReactiveBaselinePolicy(), episodeId: 'e', autoPromote: true });
    tick('policy', 10);
    expect(session.rate('good')).toMatchObject({ ok: true });
    expect(session.status()).toMatchObject({
      learning: false,
      note: expect.stringMatching(/Learning is off/),
      counts: { ratings: 1 },
      versions: [{ number: 1, driving: true, good: 1 }],
    });
  });

  it('turns a takeover into a new driving version with auto-promote, and rolls back to the one before', () => {
    const { loop, tick } = loopForTest();
    const improver = new VersionPerIntervention();
    const initial = new ReactiveBaselinePolicy();
    const session = new LearningSession({ loop, initialPolicy: initial, improver, episodeId: 'e', autoPromote: true });
    tick('policy', 20);
    tick('operator', 5);
    tick('policy', 5);
    expect(improver.observed).toBe(30);
    expect(session.status()).toMatchObject({
      counts: { interventions: 1 },
      drivingVersion: 2,
      versionCount: 2,
      lastMessage: { text: expect.stringMatching(/v2 is ready and drives now/) },
    });
    expect(loop.policy?.version).toBe('learned-1');
    expect(session.rollback()).toMatchObject({ ok: true });
    expect(loop.policy).toBe(initial);
    expect(session.status().versions.map((version) => [version.number, version.driving, version.interventions])).toEqual([
      [1, true, 1],
      [2, false, 0],
    ]);
  });

  it('leaves a new version waiting for approval without auto-promote', () => {
    const { loop, tick } = loopForTest();
    const session = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver: new VersionPerIntervention(),
      episodeId: 'e',
      autoPromote: false,
    });
    tick('policy', 20);
    tick('operator', 5);
    tick('policy', 1);
    expect(session.status()).toMatchObject({ drivingVersion: 1, versionCount: 2 });
    expect(loop.policy).toBeUndefined();
    expect(session.promote(2)).toMatchObject({ ok: true });
    expect(loop.policy?.version).toBe('learned-1');
  });

  it('asks a question while the policy drives, takes one answer to it, and tells the learner', () => {
    const { loop, tick, now } = loopForTest();
    const improver = new VersionPerIntervention();
    const session = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver,
      episodeId: 'e',
      autoPromote: true,
      clock: now,
      picker: { everySecs: 5, segmentTicks: 10, settleSecs: 0 },
    });
    tick('policy', 60);
    const question = session.status().question!;
    expect(question).toBeDefined();
    expect(session.answer(question.id, 'left')).toMatchObject({ ok: true, message: 'Recorded: left is better' });
    expect(session.answer(question.id, 'right')).toEqual({ ok: false, message: 'That question was already answered' });
    expect(session.answer('question-never', 'left')).toEqual({ ok: false, message: 'No such question was asked' });
    expect(improver.seen.at(-1)!.preferences).toEqual([
      expect.objectContaining({ first: expect.objectContaining({ startStep: question.left.startStep }), answer: 'first' }),
    ]);
    expect(session.undo()).toMatchObject({ ok: true });
    expect(improver.seen.at(-1)!.preferences).toEqual([]);
  });

  it('keeps driving and raises an alert when the learner throws', () => {
    const { loop, tick } = loopForTest();
    const improver = new VersionPerIntervention();
    improver.observe = () => {
      throw new Error('out of memory');
    };
    const session = new LearningSession({ loop, initialPolicy: new ReactiveBaselinePolicy(), improver, episodeId: 'e', autoPromote: true });
    tick('policy', 3);
    expect(session.alerts()).toEqual([expect.objectContaining({ key: 'learning-observe', message: expect.stringMatching(/out of memory/) })]);
  });

  it('tells the operator when the learner has stopped learning, and stops telling once it recovers', () => {
    const { loop } = loopForTest();
    let problem: string | undefined = 'the thread failed: out of memory';
    const improver = Object.assign(new VersionPerIntervention(), { problem: () => problem });
    const session = new LearningSession({ loop, initialPolicy: new ReactiveBaselinePolicy(), improver, episodeId: 'e', autoPromote: true });
    expect(session.alerts()).toEqual([
      expect.objectContaining({ key: 'learning-stalled', message: expect.stringMatching(/not learning: the thread failed: out of memory/) }),
    ]);
    problem = undefined;
    expect(session.alerts()).toEqual([]);
  });

  it('retrains from memory when the operator asks, once at a time, and says what came of it', async () => {
    const { loop, tick } = loopForTest();
    const without = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver: new VersionPerIntervention(),
      episodeId: 'e',
      autoPromote: true,
    });
    expect(without.retrainFromMemory()).toEqual({ ok: false, message: 'This session keeps no memory (or has no learner): there is nothing to retrain from' });
    expect(without.status().slowPath).toBeUndefined();

    let finish!: (outcome: RetrainOutcome) => void;
    let retrains = 0;
    const slowPath = new SlowPath(() => (retrains++, new Promise<RetrainOutcome>((resolve) => (finish = resolve))), { firstAfterMs: 3_600_000, everyMs: 0 });
    const session = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver: new VersionPerIntervention(),
      episodeId: 'e',
      autoPromote: true,
      slowPath,
    });
    tick('operator', 3);
    expect(session.retrainFromMemory()).toEqual({ ok: true, message: 'Retraining from memory: the new version is offered when it is ready' });
    expect(session.retrainFromMemory()).toEqual({ ok: false, message: 'A retrain from memory is already running: its version is offered when it is ready' });
    expect(session.status().slowPath).toEqual({ running: true, everySecs: 0 });
    finish({ ok: false, reason: 'the memory holds too few driven ticks', ticks: 40 });
    await expect.poll(() => session.status().lastMessage?.text).toBe('Retraining from memory gave no version: the memory holds too few driven ticks');
    expect(session.status().slowPath).toMatchObject({ running: false, last: { ok: false } });
    expect(retrains).toBe(1);
    await session.close();
  });
  it('warns while the policy drives where the reward is unknown, and stops when the operator takes over', () => {
    const { loop, tick, now } = loopForTest();
    const improver = new SpreadInTheEmbedding();
    const session = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver,
      episodeId: 'e',
      autoPromote: false,
      rewardDrift: { windowTicks: 5, warnAboveRatio: 2, clearBelowRatio: 1.5 },
    });
    tick('operator', 10, [5, 0]);
    expect(improver.scored).toBe(0);
    expect(session.status().rewardDrift).toBeUndefined();
    tick('policy', 5, [0.1, 0]);
    expect(session.status().rewardDrift).toEqual({ recentSpread: expect.closeTo(0.1, 6), taughtSpread: 0.1, drifting: false });
    expect(session.alerts().map((alert) => alert.key)).not.toContain('reward-unknown');
    tick('policy', 5, [0.4, 0]);
    // The second of those ticks takes the 5-tick mean to 0.22, past 2× the taught 0.1.
    const warnedAtMs = now() - 300;
    expect(session.status().rewardDrift).toEqual({ recentSpread: expect.closeTo(0.4, 6), taughtSpread: 0.1, drifting: true, sinceMs: warnedAtMs });
    expect(session.alerts()).toContainEqual(
      expect.objectContaining({
        key: 'reward-unknown',
        severity: 'warn',
        message: expect.stringMatching(/reward model is unsure.*4\.0×/),
        hint: expect.stringMatching(/teaches the most.*not a collision warning/),
      }),
    );
    // The robot is still the policy's to drive: the warning holds back nothing.
    expect(loop.policy).toBeUndefined();
    tick('operator', 1, [0.4, 0]);
    expect(session.status().rewardDrift).toBeUndefined();
    expect(session.alerts().map((alert) => alert.key)).not.toContain('reward-unknown');
  });

  it('has no drift to report from a learner that cannot score the reward', () => {
    const { loop, tick } = loopForTest();
    const session = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver: new VersionPerIntervention(),
      episodeId: 'e',
      autoPromote: true,
    });
    tick('policy', 30, [9, 9]);
    expect(session.status().rewardDrift).toBeUndefined();
    expect(session.alerts()).toEqual([]);
  });

  it('times a version to the goal only over episodes it drove alone, and tells the learner how each episode ended', () => {
    const { loop, tick } = loopForTest();
    const improver = new VersionPerIntervention();
    const session = new LearningSession({ loop, initialPolicy: new ReactiveBaselinePolicy(), improver, episodeId: 'e', autoPromote: true });
    tick('policy', 30);
    session.endEpisode({ index: 0, step: 29 }, 'reached-goal');
    const v1 = session.status().versions.find((version) => version.number === 1)!;
    expect(v1.goalSecs).toBeCloseTo(2.9, 6);
    expect(v1.goalEpisodes).toBe(1);
    expect(improver.seen.at(-1)!.episodes).toEqual([{ episodeId: 'e', outcome: 'reached-goal' }]);
  });

  it('does not time an episode the operator took part in', () => {
    const { loop, tick } = loopForTest();
    const session = new LearningSession({
      loop,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver: new VersionPerIntervention(),
      episodeId: 'e',
      autoPromote: true,
    });
    tick('policy', 10);
    tick('operator', 1);
    tick('policy', 10);
    session.endEpisode({ index: 0, step: 20 }, 'reached-goal');
    expect(session.status().versions.find((version) => version.number === 1)!.goalSecs).toBeUndefined();
  });

  it("shows the critics' value and spread of the moment on screen, and nothing from a learner without critics", () => {
    const { loop, tick } = loopForTest();
    class WithCritics extends VersionPerIntervention {
      criticEstimate(embedding: Float32Array): { value: number; spread: number } {
        return { value: embedding[0]!, spread: embedding[1]! };
      }
    }
    const session = new LearningSession({ loop, initialPolicy: new ReactiveBaselinePolicy(), improver: new WithCritics(), episodeId: 'e', autoPromote: true });
    tick('policy', 1, [2.5, 0.25]);
    expect(session.status().critic).toEqual({ value: 2.5, spread: 0.25 });
    const { loop: other, tick: otherTick } = loopForTest();
    const without = new LearningSession({
      loop: other,
      initialPolicy: new ReactiveBaselinePolicy(),
      improver: new VersionPerIntervention(),
      episodeId: 'e',
      autoPromote: true,
    });
    otherTick('policy', 1, [2.5, 0.25]);
    expect(without.status().critic).toBeUndefined();
  });
});
