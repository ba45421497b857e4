// Which two clips to show the operator, and when (DESIGN §3): pairs of recent policy-driven segments
// where the reward ensemble disagrees most, asked at the operator's pace, never while they drive and
// never two at once. A question that waits too long expires: the moment has passed.
import type { Driver } from '../core/tickReport.ts';
import type { Segment } from './feedbackTypes.ts';

export interface PreferenceQuestion {
  id: string;
  /** Shown on the left. */
  first: Segment;
  /** Shown on the right. */
  second: Segment;
  /** Wall times the segments span, for reading their clips back from the recording. */
  firstSpanMs: { startMs: number; endMs: number };
  secondSpanMs: { startMs: number; endMs: number };
  askedAtMs: number;
  expiresAtMs: number;
  /** The ensemble's disagreement about the pair when it was asked. */
  disagreement: number;
}

export interface PickerTick {
  episodeId: string;
  step: number;
  timeMs: number;
  driver: Driver;
}

export interface QuestionPickerOptions {
  /** Ticks in each clip (2.5 s at 10 Hz). */
  segmentTicks: number;
  /** Seconds between questions; undefined: none asked. */
  everySecs: number | undefined;
  expireSecs: number;
  /** Only segments from this far back are candidates. */
  lookbackSecs: number;
  /** A segment must have ended this long ago, so that its clip is in the recording. */
  settleSecs: number;
  /** How many pairs are scored to pick one. */
  sampledPairs: number;
  random: () => number;
}

const DEFAULTS: QuestionPickerOptions = {
  segmentTicks: 25,
  everySecs: 30,
  expireSecs: 60,
  lookbackSecs: 120,
  settleSecs: 3,
  sampledPairs: 16,
  random: Math.random,
};

export type TakeResult = { ok: true; question: PreferenceQuestion } | { ok: false; message: string };

/** How the ensemble scores a pair; undefined when it cannot. */
export type Disagreement = (a: Segment, b: Segment) => number | undefined;

const REMEMBERED_CLOSED = 64;

export class QuestionPicker {
  private readonly options: QuestionPickerOptions;
  private readonly ticks: PickerTick[] = [];
  private readonly closed = new Map<string, 'answered' | 'expired' | 'withdrawn'>();
  private openQuestion: PreferenceQuestion | undefined;
  private lastAskedOrClosedMs: number | undefined;
  private nextId = 1;

  constructor(options: Partial<QuestionPickerOptions> = {}) {
    this.options = { ...DEFAULTS, ...options };
  }

  get everySecs(): number | undefined {
    return this.options.everySecs;
  }

  setPace(everySecs: number | undefined): void {
    this.options.everySecs = everySecs;
  }

  noteTick(tick: PickerTick): void {
    this.ticks.push(tick);
    const oldestMs = tick.timeMs - this.options.lookbackSecs * 1000;
    let drop = 0;
    while (drop < this.ticks.length && this.ticks[drop]!.timeMs < oldestMs) drop++;
    if (drop > 0) this.ticks.splice(0, drop);
  }

  /** The open question, expiring it first when its time is up. */
  open(nowMs: number): PreferenceQuestion | undefined {
    if (this.openQuestion && nowMs >= this.openQuestion.expiresAtMs) this.close(this.openQuestion.id, 'expired', nowMs);
    return this.openQuestion;
  }

  /**
   * Asks a new question when it is time: at the pace, nobody else open, the operator not driving,
   * and two scorable segments to compare. Returns the question it asked, if any.
   */
  maybeAsk(nowMs: number, driver: Driver, disagreement: Disagreement): PreferenceQuestion | undefined {
    const everySecs = this.options.everySecs;
    if (everySecs === undefined || this.open(nowMs) || driver === 'operator') return undefined;
    if (this.lastAskedOrClosedMs !== undefined && nowMs - this.lastAskedOrClosedMs < everySecs * 1000) return undefined;
    const segments = this.candidateSegments(nowMs);
    if (segments.length < 2) return undefined;
    let best: { a: CandidateSegment; b: CandidateSegment; score: number } | undefined;
    for (let tries = 0; tries < this.options.sampledPairs; tries++) {
      const i = Math.floor(this.options.random() * segments.length);
      let j = Math.floor(this.options.random() * (segments.length - 1));
      if (j >= i) j++;
      const a = segments[i]!;
      const b = segments[j]!;
      const score = disagreement(a.segment, b.segment);
      if (score === undefined || !Number.isFinite(score)) continue;
      if (!best || score > best.score) best = { a, b, score };
    }
    if (!best) return undefined;
    // Show them in time order: the operator reads left as earlier.
    const [left, right] = best.a.startMs <= best.b.startMs ? [best.a, best.b] : [best.b, best.a];
    this.openQuestion = {
      id: `question-${nowMs.toString(36)}-${(this.nextId++).toString(36)}`,
      first: left.segment,
      second: right.segment,
      firstSpanMs: { startMs: left.startMs, endMs: left.endMs },
      secondSpanMs: { startMs: right.startMs, endMs: right.endMs },
      askedAtMs: nowMs,
      expiresAtMs: nowMs + this.options.expireSecs * 1000,
      disagreement: best.score,
    };
    this.lastAskedOrClosedMs = nowMs;
    return this.openQuestion;
  }

  /** Takes the open question for answering; refuses one never asked, already answered, or expired. */
  take(id: string, nowMs: number): TakeResult {
    const open = this.open(nowMs);
    if (open && open.id === id) {
      this.close(id, 'answered', nowMs);
      return { ok: true, question: open };
    }
    const closed = this.closed.get(id);
    if (closed === 'answered') return { ok: false, message: 'That question was already answered' };
    if (closed === 'expired') return { ok: false, message: 'That question expired before it was answered' };
    if (closed === 'withdrawn') return { ok: false, message: 'That question was withdrawn: its clips are gone' };
    return { ok: false, message: 'No such question was asked' };
  }

  /** Withdraws the open question (its clips cannot be shown). */
  withdraw(id: string, nowMs: number): void {
    if (this.openQuestion?.id === id) this.close(id, 'withdrawn', nowMs);
  }

  private close(id: string, why: 'answered' | 'expired' | 'withdrawn', nowMs: number): void {
    if (this.openQuestion?.id === id) this.openQuestion = undefined;
    this.closed.set(id, why);
    if (this.closed.size > REMEMBERED_CLOSED) this.closed.delete(this.closed.keys().next().value!);
    this.lastAskedOrClosedMs = nowMs;
  }

  /** Non-overlapping windows of consecutive policy-driven ticks, settled into the recording. */
  private candidateSegments(nowMs: number): CandidateSegment[] {
    const segments: CandidateSegment[] = [];
    const settledBeforeMs = nowMs - this.options.settleSecs * 1000;
    let run: PickerTick[] = [];
    const flush = () => {
      for (let start = 0; start + this.options.segmentTicks <= run.length; start += this.options.segmentTicks) {
        const first = run[start]!;
        const last = run[start + this.options.segmentTicks - 1]!;
        segments.push({ segment: { episodeId: first.episodeId, startStep: first.step, endStep: last.step }, startMs: first.timeMs, endMs: last.timeMs });
      }
      run = [];
    };
    for (const tick of this.ticks) {
      if (tick.timeMs > settledBeforeMs) break;
      const previous = run.at(-1);
      if (tick.driver !== 'policy' || (previous && (previous.episodeId !== tick.episodeId || previous.step + 1 !== tick.step))) flush();
      if (tick.driver === 'policy') run.push(tick);
    }
    flush();
    return segments;
  }
}

interface CandidateSegment {
  segment: Segment;
  startMs: number;
  endMs: number;
}
