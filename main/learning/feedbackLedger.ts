// Everything the operator teaches in a live session (DESIGN §3), kept as they teach it: each takeover
// as one intervention, ratings of a moment, answers to preference questions, and undo. The ledger
// sees every tick so that it can tell a takeover from a tick under takeover and check that a rated
// moment or a question's clip is one it knows. Accepted items are also written as `corrections` rows
// through an optional sink; a failing sink keeps the signal here and raises an alert, never throws.
import type { Driver } from '../core/tickReport.ts';
import type { CoreAlert } from '../core/alert.ts';
import type { CorrectionRow } from '../memory/corrections.ts';
import type { FeedbackSignals, InterventionSignal, PreferenceAnswer, PreferenceSignal, RatingSignal, Segment } from './feedbackTypes.ts';
import { RatingThrottle } from './ratingThrottle.ts';

/** One control tick as the ledger keeps it. */
export interface LedgerTick {
  episodeId: string;
  step: number;
  timeMs: number;
  driver: Driver;
  /** Autonomy was on at this tick. */
  autonomy: boolean;
  /** The policy version number driving at this tick (for the versions' records). */
  drivingVersion: number;
}

export type CorrectionSink = (row: CorrectionRow) => Promise<void>;

export interface FeedbackLedgerOptions {
  /** How many of the policy's ticks before a takeover form its penalised segment. */
  policySegmentTicks: number;
  /** Ticks kept for rating past moments and checking clips (10 min at 10 Hz). */
  keptTicks: number;
  ratingsPerSec: number;
  ratingBurst: number;
  /** Wall clock in ms; injectable for tests. */
  clock: () => number;
  sink?: CorrectionSink;
  /** Who gave the feedback, as the corrections table records it. */
  answeredBy: string;
}

const DEFAULTS: Omit<FeedbackLedgerOptions, 'sink'> = {
  policySegmentTicks: 20,
  keptTicks: 6000,
  ratingsPerSec: 4,
  ratingBurst: 6,
  clock: Date.now,
  answeredBy: 'operator',
};

export type LedgerResult<T = undefined> = { ok: true; message: string; value: T } | { ok: false; message: string };

export type RatingTarget = { atMs: number } | { step: number } | undefined;

export interface AcceptedRating {
  rating: RatingSignal;
  tick: LedgerTick;
}

/** A withdrawn rating or answer, so the caller can take it off its own records too. */
export type UndoneItem = { kind: 'rating'; rating: RatingSignal; tick: LedgerTick } | { kind: 'preference'; preference: PreferenceSignal };

interface OpenIntervention {
  signal: InterventionSignal;
  drivingVersion: number;
}

type UndoEntry = { kind: 'rating'; id: string } | { kind: 'preference'; id: string };

export class FeedbackLedger {
  private readonly options: FeedbackLedgerOptions;
  private readonly ticks: LedgerTick[] = [];
  private readonly interventions: InterventionSignal[] = [];
  private readonly ratings = new Map<string, AcceptedRating>();
  private readonly preferences = new Map<string, PreferenceSignal>();
  private readonly undoStack: UndoEntry[] = [];
  private readonly changeListeners = new Set<() => void>();
  private readonly interventionListeners = new Set<(signal: InterventionSignal, drivingVersion: number) => void>();
  private readonly throttle: RatingThrottle;
  private open: OpenIntervention | undefined;
  private nextId = 1;
  private writes: Promise<void> = Promise.resolve();
  private sinkFailures = 0;
  private lastSinkError: string | undefined;

  constructor(options: Partial<FeedbackLedgerOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
    this.throttle = new RatingThrottle(this.options.ratingsPerSec, this.options.ratingBurst);
  }

  // ── Ticks and interventions ───────────────────────────────────────────────────────────────────

  noteTick(tick: LedgerTick): void {
    const previous = this.ticks.at(-1);
    this.ticks.push(tick);
    if (this.ticks.length > this.options.keptTicks) this.ticks.splice(0, this.ticks.length - this.options.keptTicks);
    const open = this.open;
    if (open) {
      if (tick.driver === 'operator' && tick.autonomy && tick.episodeId === open.signal.episodeId) {
        open.signal.operatorSegment.endStep = tick.step;
        return;
      }
      this.closeIntervention();
    }
    if (tick.driver === 'operator' && tick.autonomy && previous?.driver === 'policy' && previous.autonomy && previous.episodeId === tick.episodeId) {
      this.openIntervention(tick, previous.drivingVersion);
    }
  }

  /** The latest tick, if any. */
  latestTick(): LedgerTick | undefined {
    return this.ticks.at(-1);
  }

  /** The tick of an episode's step, while the ledger still keeps it. */
  tickAt(episodeId: string, step: number): LedgerTick | undefined {
    const index = this.indexOfStep(episodeId, step);
    return index === undefined ? undefined : this.ticks[index];
  }

  /** Whether every tick of a segment is still kept (a clip of it can be checked against its ticks). */
  keepsSegment(segment: Segment): boolean {
    return this.tickAt(segment.episodeId, segment.startStep) !== undefined && this.tickAt(segment.episodeId, segment.endStep) !== undefined;
  }

  /** The kept ticks, oldest first (read-only). */
  keptTicks(): readonly LedgerTick[] {
    return this.ticks;
  }

  interventionActive(): boolean {
    return this.open !== undefined;
  }

  // ── Ratings ───────────────────────────────────────────────────────────────────────────────────

  rate(value: 'good' | 'bad', target: RatingTarget = undefined): LedgerResult<AcceptedRating> {
    const nowMs = this.options.clock();
    const latest = this.ticks.at(-1);
    if (!latest) return { ok: false, message: 'Nothing to rate yet: the robot has not ticked' };
    const found = this.findTarget(target, latest);
    if (!found.ok) return found;
    if (!this.throttle.take(nowMs)) {
      return { ok: false, message: `Ratings are coming faster than ${this.options.ratingsPerSec} a second — ignored` };
    }
    const tick = found.value;
    const rating: RatingSignal = { id: this.newId('rating'), episodeId: tick.episodeId, step: tick.step, rating: value === 'good' ? 1 : -1 };
    const accepted = { rating, tick };
    this.ratings.set(rating.id, accepted);
    this.undoStack.push({ kind: 'rating', id: rating.id });
    this.write({
      correctionId: rating.id,
      kind: 'rating',
      atMs: nowMs,
      episodeId: tick.episodeId,
      spanStartStep: tick.step,
      spanEndStep: tick.step,
      rating: rating.rating,
      answeredBy: this.options.answeredBy,
    });
    this.changed();
    const when = target === undefined ? 'this moment' : `step ${tick.step}`;
    return { ok: true, message: `Rated ${when} ${value}`, value: accepted };
  }

  private findTarget(target: RatingTarget, latest: LedgerTick): LedgerResult<LedgerTick> {
    if (target === undefined) return { ok: true, message: '', value: latest };
    const oldest = this.ticks[0]!;
    if ('step' in target) {
      if (target.step > latest.step) return { ok: false, message: `Step ${target.step} has not happened yet (the latest is ${latest.step})` };
      const tick = this.tickAt(latest.episodeId, target.step);
      if (!tick) return { ok: false, message: `Step ${target.step} is not a moment this session still keeps (the oldest is step ${oldest.step})` };
      return { ok: true, message: '', value: tick };
    }
    // A moment is the tick at or before it; later than one tick period past the latest is the future.
    const periodMs = this.ticks.length > 1 ? latest.timeMs - this.ticks.at(-2)!.timeMs : 100;
    if (target.atMs > latest.timeMs + Math.max(periodMs, 1)) return { ok: false, message: 'That moment is in the future: only what has happened can be rated' };
    if (target.atMs < oldest.timeMs) return { ok: false, message: 'That moment is older than this session keeps: rate a more recent one' };
    let low = 0;
    let high = this.ticks.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.ticks[middle]!.timeMs <= target.atMs) low = middle;
      else high = middle - 1;
    }
    return { ok: true, message: '', value: this.ticks[low]! };
  }

  // ── Preferences ───────────────────────────────────────────────────────────────────────────────

  /**
   * Records an answer to an asked question (the caller checks the question). The same pair answered
   * again replaces the earlier answer, and the message says so; `unsure` (skip) teaches nothing.
   */
  answer(first: Segment, second: Segment, answer: PreferenceAnswer | 'unsure', question: string): LedgerResult<PreferenceSignal | undefined> {
    if (!this.keepsSegment(first) || !this.keepsSegment(second))
      return { ok: false, message: 'The clips of this question are no longer kept: it cannot be answered' };
    const nowMs = this.options.clock();
    const id = this.newId('preference');
    const row: CorrectionRow = {
      correctionId: id,
      kind: 'preference',
      atMs: nowMs,
      ...spanColumns(first, second),
      question,
      answer,
      answeredBy: this.options.answeredBy,
    };
    if (answer === 'unsure') {
      this.write(row);
      return { ok: true, message: 'Skipped: this pair teaches nothing', value: undefined };
    }
    let message = answer === 'equal' ? 'Recorded: about the same' : `Recorded: ${answer === 'first' ? 'left' : 'right'} is better`;
    const earlier = [...this.preferences.values()].find((other) => samePair(other, first, second));
    if (earlier) {
      this.preferences.delete(earlier.id);
      this.write({
        correctionId: this.newId('undo'),
        kind: 'undo',
        atMs: nowMs,
        ...spanColumns(earlier.first, earlier.second),
        undoesCorrectionId: earlier.id,
        answeredBy: this.options.answeredBy,
      });
      const flipped = orientedAnswer(earlier, first) !== answer;
      message += flipped
        ? ' — this contradicts your earlier answer for the same pair, which it replaces'
        : ' — replacing your earlier answer for the same pair';
    }
    const signal: PreferenceSignal = { id, first: { ...first }, second: { ...second }, answer };
    this.preferences.set(id, signal);
    this.undoStack.push({ kind: 'preference', id });
    this.write(row);
    this.changed();
    return { ok: true, message, value: signal };
  }

  // ── Undo ──────────────────────────────────────────────────────────────────────────────────────

  /** Withdraws the last rating or answer still standing; interventions are never undone. */
  undo(): LedgerResult<UndoneItem> {
    while (this.undoStack.length > 0) {
      const entry = this.undoStack.pop()!;
      const nowMs = this.options.clock();
      if (entry.kind === 'rating') {
        const accepted = this.ratings.get(entry.id);
        if (!accepted) continue;
        this.ratings.delete(entry.id);
        const { rating } = accepted;
        this.write({
          correctionId: this.newId('undo'),
          kind: 'undo',
          atMs: nowMs,
          episodeId: rating.episodeId,
          spanStartStep: rating.step,
          spanEndStep: rating.step,
          undoesCorrectionId: rating.id,
          answeredBy: this.options.answeredBy,
        });
        this.changed();
        return {
          ok: true,
          message: `Undid the ${rating.rating > 0 ? 'good' : 'bad'} rating of step ${rating.step}`,
          value: { kind: 'rating', rating, tick: accepted.tick },
        };
      }
      const preference = this.preferences.get(entry.id);
      if (!preference) continue;
      this.preferences.delete(entry.id);
      this.write({
        correctionId: this.newId('undo'),
        kind: 'undo',
        atMs: nowMs,
        ...spanColumns(preference.first, preference.second),
        undoesCorrectionId: preference.id,
        answeredBy: this.options.answeredBy,
      });
      this.changed();
      return { ok: true, message: 'Undid your last answer', value: { kind: 'preference', preference } };
    }
    return { ok: false, message: 'Nothing to undo: no rating or answer is standing' };
  }

  canUndo(): boolean {
    return this.undoStack.some((entry) => (entry.kind === 'rating' ? this.ratings.has(entry.id) : this.preferences.has(entry.id)));
  }

  // ── What the learners read ────────────────────────────────────────────────────────────────────

  signals(): FeedbackSignals {
    return {
      interventions: this.interventions.map((signal) => ({
        ...signal,
        operatorSegment: { ...signal.operatorSegment },
        policySegment: signal.policySegment && { ...signal.policySegment },
      })),
      preferences: [...this.preferences.values()],
      ratings: [...this.ratings.values()].map((accepted) => accepted.rating),
    };
  }

  counts(): { interventions: number; preferences: number; ratings: number } {
    return { interventions: this.interventions.length, preferences: this.preferences.size, ratings: this.ratings.size };
  }

  /** Told whenever the signals change (an intervention starts or ends, a rating, an answer, an undo). */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Told once per takeover, when it starts, with the version that was driving. */
  onIntervention(listener: (signal: InterventionSignal, drivingVersion: number) => void): () => void {
    this.interventionListeners.add(listener);
    return () => this.interventionListeners.delete(listener);
  }

  alerts(): CoreAlert[] {
    if (this.sinkFailures === 0) return [];
    return [
      {
        key: 'feedback-not-saved',
        severity: 'warn',
        message: `${this.sinkFailures} feedback item${this.sinkFailures === 1 ? '' : 's'} could not be saved to memory${this.lastSinkError ? `: ${this.lastSinkError}` : ''}`,
        hint: 'Learning still uses them in this session; they will be missing from memory afterwards. Check the memory location’s disk.',
      },
    ];
  }

  /** Waits for every correction row handed to the sink so far. */
  async flush(): Promise<void> {
    await this.writes;
  }

  // ── Inside ────────────────────────────────────────────────────────────────────────────────────

  private openIntervention(tick: LedgerTick, drivingVersion: number): void {
    const policyTicks: LedgerTick[] = [];
    for (let index = this.ticks.length - 2; index >= 0 && policyTicks.length < this.options.policySegmentTicks; index--) {
      const before = this.ticks[index]!;
      if (before.driver !== 'policy' || before.episodeId !== tick.episodeId) break;
      policyTicks.push(before);
    }
    const policySegment: Segment | undefined =
      policyTicks.length === 0 ? undefined : { episodeId: tick.episodeId, startStep: policyTicks.at(-1)!.step, endStep: policyTicks[0]!.step };
    const signal: InterventionSignal = {
      id: this.newId('intervention'),
      atStep: tick.step,
      episodeId: tick.episodeId,
      policySegment,
      operatorSegment: { episodeId: tick.episodeId, startStep: tick.step, endStep: tick.step },
    };
    this.open = { signal, drivingVersion };
    this.interventions.push(signal);
    for (const listener of this.interventionListeners) listener(signal, drivingVersion);
    this.changed();
  }

  private closeIntervention(): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const { signal } = open;
    this.write({
      correctionId: signal.id,
      kind: 'intervention',
      atMs: this.options.clock(),
      episodeId: signal.episodeId,
      spanStartStep: signal.operatorSegment.startStep,
      spanEndStep: signal.operatorSegment.endStep,
      ...(signal.policySegment
        ? { otherEpisodeId: signal.policySegment.episodeId, otherSpanStartStep: signal.policySegment.startStep, otherSpanEndStep: signal.policySegment.endStep }
        : {}),
      answeredBy: this.options.answeredBy,
    });
    this.changed();
  }

  private indexOfStep(episodeId: string, step: number): number | undefined {
    const first = this.ticks[0];
    if (!first) return undefined;
    // Steps of one episode are consecutive in the ring; look from where the step would be.
    const guess = step - first.step;
    const tick = this.ticks[guess];
    if (tick && tick.step === step && tick.episodeId === episodeId) return guess;
    const index = this.ticks.findIndex((candidate) => candidate.step === step && candidate.episodeId === episodeId);
    return index < 0 ? undefined : index;
  }

  private newId(kind: string): string {
    return `${kind}-${this.options.clock().toString(36)}-${(this.nextId++).toString(36)}`;
  }

  private write(row: CorrectionRow): void {
    const sink = this.options.sink;
    if (!sink) return;
    this.writes = this.writes.then(async () => {
      try {
        await sink(row);
      } catch (error) {
        this.sinkFailures++;
        this.lastSinkError = error instanceof Error ? error.message : String(error);
      }
    });
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }
}

function spanColumns(first: Segment, second: Segment) {
  return {
    episodeId: first.episodeId,
    spanStartStep: first.startStep,
    spanEndStep: first.endStep,
    otherEpisodeId: second.episodeId,
    otherSpanStartStep: second.startStep,
    otherSpanEndStep: second.endStep,
  };
}

function sameSegment(a: Segment, b: Segment): boolean {
  return a.episodeId === b.episodeId && a.startStep === b.startStep && a.endStep === b.endStep;
}

function samePair(preference: PreferenceSignal, first: Segment, second: Segment): boolean {
  return (
    (sameSegment(preference.first, first) && sameSegment(preference.second, second)) ||
    (sameSegment(preference.first, second) && sameSegment(preference.second, first))
  );
}

/** An earlier answer as it reads with `first` on the left. */
function orientedAnswer(preference: PreferenceSignal, first: Segment): PreferenceAnswer {
  if (sameSegment(preference.first, first) || preference.answer === 'equal') return preference.answer;
  return preference.answer === 'first' ? 'second' : 'first';
}
