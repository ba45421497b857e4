// Learning from the operator in a running core (DESIGN §3): follows the control loop's ticks, keeps
// the operator's feedback (ledger), asks preference questions (picker), numbers the policy versions
// and swaps the driving one into the loop. The improver, when there is one, learns from the ticks and
// the feedback and hands over candidates; without one, feedback is still recorded and the status
// says learning is off. Nothing here may hold up or break a tick: failures become alerts.
import type { Policy } from '../core/policy.ts';
import { episodeIdOf, type EpisodeOutcome, type TickEpisode, type TickReport } from '../core/tickReport.ts';
import type { CoreAlert } from '../core/alert.ts';
import type { LearningStatus, PolicyVersionStatus } from '../core/contract.ts';
import { ZERO_DRIVE } from '../core/messages.ts';
import type { PreferenceAnswer } from './feedbackTypes.ts';
import { FeedbackLedger, type CorrectionSink, type FeedbackLedgerOptions, type LedgerTick } from './feedbackLedger.ts';
import { stretchRatePerMin, type InterventionTrendOptions } from './interventionTrend.ts';
import type { LearningTick, PolicyImprover } from './policyImprover.ts';
import { PolicyVersions, type PolicyVersion } from './policyVersions.ts';
import { readClip, type Clip, type ClipRecording, type ClipTopics } from './questionClips.ts';
import { RewardDriftWatch, type RewardDriftOptions } from './rewardDrift.ts';
import { describeOutcome, type SlowPath } from './slowPath.ts';
import { QuestionPicker, type PreferenceQuestion, type QuestionPickerOptions } from './questionPicker.ts';

/** The part of the control loop the session uses (ControlLoop has it). */
export interface LearningLoop {
  onTick(listener: (report: Readonly<TickReport>) => void): () => void;
  setPolicy(policy: Policy): void;
}

export interface LearningSessionOptions {
  loop: LearningLoop;
  /** The policy the loop starts with: v1. */
  initialPolicy: Policy;
  improver?: PolicyImprover;
  /** The episode the ticks belong to (the memory's rows use the same). */
  episodeId: string;
  /** New versions drive at once (default on for the simulated robot, off for real robots). */
  autoPromote: boolean;
  /** Where accepted feedback is written as corrections rows (the memory). */
  sink?: CorrectionSink;
  /** The session's recording, for the questions' clips; without it, questions show no clips. */
  clips?: { recording: ClipRecording; topics: () => ClipTopics };
  clock?: () => number;
  picker?: Partial<QuestionPickerOptions>;
  ledger?: Partial<Omit<FeedbackLedgerOptions, 'sink' | 'clock'>>;
  /** A version's intervention rate is shown after it has driven this long. */
  minDrivingSecsForRate?: number;
  /** The intervention trend's stretches of driving time. */
  trend?: Partial<InterventionTrendOptions>;
  /** Retraining from the whole memory (with a memory and a learner); the session starts and closes it. */
  slowPath?: SlowPath;
  /** When to warn that the policy drives where the reward is unknown. */
  rewardDrift?: Partial<RewardDriftOptions>;
}

export type LearningResult = { ok: true; message: string } | { ok: false; message: string };
export type ClipResult = { ok: true; clip: Clip } | { ok: false; message: string };

/** The versions table shows at most this many of the newest versions (plus v1 and the driving one). */
const SHOWN_VERSIONS = 30;
const ANSWERS: Record<'left' | 'right' | 'same' | 'skip', PreferenceAnswer | 'unsure'> = { left: 'first', right: 'second', same: 'equal', skip: 'unsure' };

export class LearningSession {
  readonly ledger: FeedbackLedger;
  readonly versions: PolicyVersions;
  readonly picker: QuestionPicker;
  readonly rewardDrift: RewardDriftWatch;
  private readonly clock: () => number;
  private readonly stops: Array<() => void> = [];
  private readonly problems = new Map<string, CoreAlert>();
  private clipCache: { questionId: string; clips: Promise<{ left: Clip; right: Clip }> } | undefined;
  /** An operator's tick waiting for the next one, which carries the operator's response to it (see onTick). */
  private awaitingResponse: { tick: LearningTick; episodeId: string } | undefined;
  /** Who drove the current episode: the one version, if the policy alone drove every tick of it. */
  private episodeDriving: { episodeId: string; firstMs: number; lastMs: number; version: number | undefined; unaided: boolean } | undefined;

  private noteEpisodeTick(tick: LedgerTick): void {
    let driving = this.episodeDriving;
    if (driving?.episodeId !== tick.episodeId) {
      driving = { episodeId: tick.episodeId, firstMs: tick.timeMs, lastMs: tick.timeMs, version: tick.drivingVersion, unaided: tick.step === 0 };
      this.episodeDriving = driving;
    }
    driving.lastMs = tick.timeMs;
    if (tick.driver !== 'policy' || tick.drivingVersion !== driving.version) driving.unaided = false;
  }

  /** The off-policy critics' value of the latest tick and the command in effect, and their spread. */
  private criticNow: { value: number; spread: number } | undefined;
  private readonly episodeEnds: Array<{ episodeId: string; outcome: EpisodeOutcome; steps: number; atMs: number }> = [];
  private lastMessage: LearningStatus['lastMessage'];
  private messageSeq = 0;

  constructor(private readonly options: LearningSessionOptions) {
    this.clock = options.clock ?? Date.now;
    this.ledger = new FeedbackLedger({ ...options.ledger, clock: this.clock, ...(options.sink ? { sink: options.sink } : {}) });
    this.versions = new PolicyVersions(options.initialPolicy, {
      autoPromote: options.autoPromote,
      clock: this.clock,
      ...(options.minDrivingSecsForRate === undefined ? {} : { minDrivingSecsForRate: options.minDrivingSecsForRate }),
      trend: options.trend ?? {},
    });
    this.picker = new QuestionPicker(options.picker);
    this.rewardDrift = new RewardDriftWatch(options.rewardDrift);
    this.stops.push(
      options.loop.onTick((report) => this.onTick(report)),
      this.versions.onDrivingChange((_version, policy) => {
        options.loop.setPolicy(policy);
        this.guard('driving', () => options.improver?.drivingChanged?.(policy.version));
      }),
      this.ledger.onIntervention((_signal, drivingVersion) => this.versions.noteIntervention(drivingVersion)),
      this.ledger.onChange(() => {
        options.slowPath?.noteNew();
        this.tellImprover();
      }),
    );
    options.slowPath?.start();
    const improver = options.improver;
    if (improver) this.stops.push(improver.onCandidate((candidate) => this.guard('candidate', () => this.announce(this.versions.add(candidate)))));
  }

  // ── The operator's feedback ───────────────────────────────────────────────────────────────────

  rate(value: 'good' | 'bad', atMs?: number): LearningResult {
    const result = this.ledger.rate(value, atMs === undefined ? undefined : { atMs });
    if (!result.ok) return result;
    const { rating, tick } = result.value;
    if (tick.driver === 'policy') this.versions.noteRating(tick.drivingVersion, rating.rating);
    return this.accepted(result.message);
  }

  undo(): LearningResult {
    const result = this.ledger.undo();
    if (!result.ok) return result;
    const undone = result.value;
    if (undone.kind === 'rating' && undone.tick.driver === 'policy') this.versions.noteRating(undone.tick.drivingVersion, undone.rating.rating, true);
    return this.accepted(result.message);
  }

  answer(questionId: string, answer: keyof typeof ANSWERS): LearningResult {
    const nowMs = this.clock();
    const open = this.picker.open(nowMs);
    if (open?.id === questionId && !(this.ledger.keepsSegment(open.first) && this.ledger.keepsSegment(open.second))) {
      this.picker.withdraw(questionId, nowMs);
      return { ok: false, message: 'The clips of that question are gone: it was withdrawn' };
    }
    const taken = this.picker.take(questionId, nowMs);
    if (!taken.ok) return taken;
    this.clipCache = undefined;
    const { question } = taken;
    const result = this.ledger.answer(question.first, question.second, ANSWERS[answer], question.id);
    return result.ok ? this.accepted(result.message) : result;
  }

  // ── Versions ──────────────────────────────────────────────────────────────────────────────────

  promote(version: number): LearningResult {
    return this.acceptedIfOk(this.versions.promote(version));
  }

  rollback(): LearningResult {
    return this.acceptedIfOk(this.versions.rollback());
  }

  hold(held: boolean): LearningResult {
    return this.acceptedIfOk(this.versions.hold(held));
  }

  setAutoPromote(enabled: boolean): LearningResult {
    return this.acceptedIfOk(this.versions.setAutoPromote(enabled));
  }

  /** Starts a retrain from the whole memory; its outcome arrives as the next message (and a version). */
  retrainFromMemory(): LearningResult {
    const slowPath = this.options.slowPath;
    if (!slowPath) return { ok: false, message: 'This session keeps no memory (or has no learner): there is nothing to retrain from' };
    if (slowPath.status().running) return { ok: false, message: 'A retrain from memory is already running: its version is offered when it is ready' };
    void slowPath.runNow().then((outcome) => this.accepted(describeOutcome(outcome)));
    return this.accepted('Retraining from memory: the new version is offered when it is ready');
  }

  setQuestionPace(everySecs: number | undefined): LearningResult {
    this.picker.setPace(everySecs);
    return this.accepted(everySecs === undefined ? 'Preference questions off' : `A preference question at most every ${everySecs} s`);
  }

  /**
   * The operator ended an episode (`ended`, as the loop numbered it) and says how: kept with the
   * session's feedback. The loop has already moved on, so nothing learned joins ticks across it.
   */
  endEpisode(ended: TickEpisode, outcome: EpisodeOutcome): LearningResult {
    const episodeId = episodeIdOf(this.options.episodeId, ended.index);
    const atMs = this.clock();
    const driven = this.episodeDriving;
    // An episode the policy drove to the goal alone, start to end, times the version that drove it.
    if (outcome === 'reached-goal' && driven?.episodeId === episodeId && driven.unaided && driven.version !== undefined)
      this.versions.noteGoalReached(driven.version, (driven.lastMs - driven.firstMs) / 1000);
    this.episodeDriving = undefined;
    this.episodeEnds.push({ episodeId, outcome, steps: ended.step, atMs });
    this.tellImprover();
    return this.accepted(`Episode ${ended.index + 1} ended: ${outcome === 'reached-goal' ? 'goal reached' : 'failed'} after ${ended.step} ticks`);
  }

  /** The episodes the operator has ended, oldest first. */
  endedEpisodes(): ReadonlyArray<{ episodeId: string; outcome: EpisodeOutcome; steps: number; atMs: number }> {
    return this.episodeEnds;
  }

  // ── Clips of the open question ────────────────────────────────────────────────────────────────

  async clip(questionId: string, side: 'left' | 'right'): Promise<ClipResult> {
    const question = this.picker.open(this.clock());
    if (!question || question.id !== questionId) return { ok: false, message: `No open question ${questionId}: it was answered, expired or never asked` };
    const source = this.options.clips;
    if (!source) return { ok: false, message: 'This session is not recorded: there are no clips to show' };
    if (this.clipCache?.questionId !== questionId) {
      const topics = source.topics();
      const read = async () => ({
        left: await readClip(source.recording, topics, question.firstSpanMs),
        right: await readClip(source.recording, topics, question.secondSpanMs),
      });
      this.clipCache = { questionId, clips: read() };
    }
    const cache = this.clipCache;
    try {
      const clips = await cache.clips;
      return { ok: true, clip: clips[side] };
    } catch (error) {
      if (this.clipCache === cache) this.clipCache = undefined;
      return { ok: false, message: `The clip could not be read from the recording: ${(error as Error).message}` };
    }
  }

  // ── What the cockpit shows ────────────────────────────────────────────────────────────────────

  status(): LearningStatus {
    const nowMs = this.clock();
    const counts = this.ledger.counts();
    const question = this.picker.open(nowMs);
    const driving = this.versions.driving();
    const all = this.versions.all();
    const shown = all.filter((version, index) => version.number === 1 || version === driving || index >= all.length - SHOWN_VERSIONS);
    const everySecs = this.picker.everySecs;
    const note = this.options.improver ? undefined : 'Learning is off: no learner is attached. Feedback is still recorded.';
    const drift = this.rewardDrift.state();
    return {
      learning: this.options.improver !== undefined,
      ...(note ? { note } : {}),
      counts: { interventions: counts.interventions, answers: counts.preferences, ratings: counts.ratings },
      interventionActive: this.ledger.interventionActive(),
      canUndo: this.ledger.canUndo(),
      ...(question ? { question: this.questionStatus(question) } : {}),
      ...(everySecs === undefined ? {} : { questionEverySecs: everySecs }),
      versions: shown.map((version) => this.versionStatus(version, driving)),
      versionCount: all.length,
      drivingVersion: driving.number,
      held: this.versions.isHeld(),
      autoPromote: this.versions.autoPromotes(),
      interventionTrend: {
        stretchSecs: this.versions.trend.options.stretchSecs,
        stretches: this.versions.trend.stretches().map((stretch) => ({
          firstVersion: stretch.firstVersion,
          lastVersion: stretch.lastVersion,
          interventions: stretch.interventions,
          ratePerMin: stretchRatePerMin(stretch),
        })),
      },
      ...(drift ? { rewardDrift: drift } : {}),
      ...(this.criticNow ? { critic: { ...this.criticNow } } : {}),
      ...(this.options.slowPath ? { slowPath: this.options.slowPath.status() } : {}),
      ...(this.lastMessage ? { lastMessage: this.lastMessage } : {}),
    };
  }

  alerts(): CoreAlert[] {
    const learnerProblem = this.options.improver?.problem?.();
    const learner: CoreAlert[] = learnerProblem
      ? [
          {
            key: 'learning-stalled',
            severity: 'warn',
            message: `The policy learner is not learning: ${learnerProblem}`,
            hint: 'Driving and feedback are unaffected; the driving version stays. Restart the core if this persists.',
          },
        ]
      : [];
    return [...this.ledger.alerts(), ...this.problems.values(), ...learner, ...this.driftAlert()];
  }

  async close(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    // The schedule stops now; a retrain in progress ends when the improver closes (it is abandoned).
    const slowPathClosed = this.options.slowPath?.close();
    await this.ledger.flush();
    await this.options.improver?.close();
    await slowPathClosed;
  }

  // ── Inside ────────────────────────────────────────────────────────────────────────────────────

  private onTick(report: Readonly<TickReport>): void {
    const { improver, episodeId: sessionEpisodeId } = this.options;
    const timeMs = report.frame.timeMs;
    const tick: LedgerTick = {
      episodeId: episodeIdOf(sessionEpisodeId, report.episode.index),
      step: report.episode.step,
      timeMs,
      driver: report.driver,
      autonomy: report.autonomous,
      drivingVersion: this.versions.driving().number,
    };
    this.ledger.noteTick(tick);
    this.versions.noteTick(timeMs, report.driver === 'policy', tick.drivingVersion);
    this.noteEpisodeTick(tick);
    this.picker.noteTick(tick);
    if (report.driver === 'operator') this.options.slowPath?.noteNew();
    if (!improver) return;
    const learningTick: LearningTick = {
      episodeId: tick.episodeId,
      step: tick.step,
      timeMs,
      embedding: report.embedding.values,
      latent: report.belief?.latent,
      action: report.commandInEffect?.command ?? ZERO_DRIVE,
      driver: report.driver,
    };
    this.guard('observe', () => {
      // What the operator did about what a tick showed arrives after the tick (the UI sends it when the
      // person has seen it): an operator's tick is taught with the command in effect at the next tick,
      // while the operator still drives. Its own command in effect is the one it answered the tick
      // before with — the same command the encoders were given as the last one sent, so a learner taught
      // with it would learn to repeat its last command (behaviour cloning's copycat problem).
      const waiting = this.awaitingResponse;
      this.awaitingResponse = undefined;
      if (waiting !== undefined) improver.observe(respondedTo(waiting.tick, report, tick.episodeId));
      if (report.driver === 'operator') this.awaitingResponse = { tick: learningTick, episodeId: tick.episodeId };
      else improver.observe(learningTick);
    });
    this.guard('critic', () => {
      this.criticNow = improver.criticEstimate?.(report.embedding.values, learningTick.action);
    });
    this.guard('reward-drift', () => {
      // Scored only while the policy drives: that is where the warning means something.
      const policyDriving = report.driver === 'policy';
      const spread = policyDriving ? improver.rewardUncertainty?.(report.embedding.values)?.spread : undefined;
      this.rewardDrift.noteTick({ driver: report.driver, timeMs, spread, taughtSpread: policyDriving ? improver.taughtRewardSpread?.() : undefined });
    });
    this.guard('question', () => {
      if (this.picker.maybeAsk(timeMs, report.driver, (a, b) => improver.disagreement(a, b))) this.clipCache = undefined;
    });
  }

  private driftAlert(): CoreAlert[] {
    const drift = this.rewardDrift.state();
    if (!drift?.drifting) return [];
    const times = (drift.recentSpread / drift.taughtSpread).toFixed(1);
    return [
      {
        key: 'reward-unknown',
        severity: 'warn',
        message: `The policy is driving where the reward model is unsure: its members disagree ${times}× more than where your feedback taught them`,
        hint: 'What the learner makes of these moments is a guess: a rating (G/B) or an answer about them teaches the most. This is not a collision warning; safety limits apply as always.',
      },
    ];
  }

  private tellImprover(): void {
    const improver = this.options.improver;
    if (improver)
      this.guard('feedback', () =>
        improver.feedbackChanged({ ...this.ledger.signals(), episodes: this.episodeEnds.map(({ episodeId, outcome }) => ({ episodeId, outcome })) }),
      );
  }

  private announce({ version, promoted }: { version: PolicyVersion; promoted: boolean }): void {
    const verdict = version.evaluation;
    if (!promoted && verdict !== undefined && verdict.verdict !== 'promote') {
      const what = verdict.verdict === 'blocked' ? 'promotion is blocked' : 'it was not promoted';
      this.accepted(`v${version.number} is ready but ${what}: ${verdict.reason}. You can still promote it by hand.`);
      return;
    }
    this.accepted(promoted ? `v${version.number} is ready and drives now (auto-promote)` : `v${version.number} is ready: promote it to let it drive`);
  }

  /** Runs a call into the learner; a failure becomes one keyed alert, cleared when the call works again. */
  private guard(what: string, call: () => void): void {
    const key = `learning-${what}`;
    try {
      call();
      this.problems.delete(key);
    } catch (error) {
      this.problems.set(key, {
        key,
        severity: 'warn',
        message: `Learning failed (${what}): ${error instanceof Error ? error.message : String(error)}`,
        hint: 'The robot and the driving version are unaffected; feedback is still recorded.',
      });
    }
  }

  private accepted(text: string): LearningResult {
    this.lastMessage = { seq: ++this.messageSeq, text, atMs: this.clock() };
    return { ok: true, message: text };
  }

  private acceptedIfOk(result: LearningResult): LearningResult {
    return result.ok ? this.accepted(result.message) : result;
  }

  private questionStatus(question: PreferenceQuestion): NonNullable<LearningStatus['question']> {
    return {
      id: question.id,
      askedAtMs: question.askedAtMs,
      expiresAtMs: question.expiresAtMs,
      left: { ...question.first, ...question.firstSpanMs },
      right: { ...question.second, ...question.secondSpanMs },
    };
  }

  private versionStatus(version: PolicyVersion, driving: PolicyVersion): PolicyVersionStatus {
    const rate = this.versions.interventionRatePerMin(version);
    const goalSecs = this.versions.medianGoalSecs(version);
    return {
      number: version.number,
      name: version.name,
      createdAtMs: version.createdAtMs,
      ...(version.trainedOn ? { trainedOn: { ...version.trainedOn } } : {}),
      policyDrivingSecs: version.policyDrivingMs / 1000,
      ...(rate === undefined ? {} : { interventionRatePerMin: rate }),
      interventions: version.interventions,
      ...(goalSecs === undefined ? {} : { goalSecs, goalEpisodes: version.goalSecs.length }),
      ...(version.evaluation ? { evaluation: { ...version.evaluation } } : {}),
      good: version.good,
      bad: version.bad,
      driving: version === driving,
      promotable: version.policy !== undefined,
    };
  }
}

/** An operator's tick with the operator's response to it: the next tick's command in effect, when the operator gave it in the same episode. */
function respondedTo(tick: LearningTick, next: Readonly<TickReport>, nextEpisodeId: string): LearningTick {
  const response = next.commandInEffect;
  if (nextEpisodeId !== tick.episodeId || response === undefined || response.driver !== 'operator') return tick;
  return { ...tick, action: response.command };
}
