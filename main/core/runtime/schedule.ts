// The one clock the core's schedules run on (issue 26). A running core uses the wall clock and timers
// (`wallSchedule`); a lockstep core (the learning bench, tests) uses a `LockstepSchedule`, whose time
// moves only when its driver says so, and which runs every piece of work due by then — and waits for
// it to finish — before time moves past it. So a learner round, a retrain from memory or any other
// scheduled work cannot fall behind simulated time there: a slow one makes the run slower, not the
// learning smaller.

export interface Schedule {
  /** Milliseconds on this schedule's clock (wall-clock ms for the wall schedule). */
  now(): number;
  /**
   * Calls `work` every `periodMs`, the first time one period from now. A lockstep schedule waits for
   * a promise it returns before its time moves on; the wall schedule does not wait (overlap is the
   * work's own to prevent). Returns a function that cancels it.
   */
  every(periodMs: number, work: () => unknown): () => void;
  /** Calls `work` once, `delayMs` from now; as `every` otherwise. */
  after(delayMs: number, work: () => unknown): () => void;
}

function checkDelay(what: string, ms: number, allowZero: boolean): void {
  if (!(Number.isFinite(ms) && (allowZero ? ms >= 0 : ms > 0)))
    throw new RangeError(`${what} must be a finite number ${allowZero ? '≥' : '>'} 0 ms, got ${ms}`);
}

/** Timers on the wall clock; they never keep a finished program alive. */
export function wallSchedule(clock: () => number = Date.now): Schedule {
  return {
    now: clock,
    every(periodMs, work) {
      checkDelay('a period', periodMs, false);
      const timer = setInterval(() => void work(), periodMs);
      timer.unref();
      return () => clearInterval(timer);
    },
    after(delayMs, work) {
      checkDelay('a delay', delayMs, true);
      const timer = setTimeout(() => void work(), delayMs);
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}

interface Job {
  dueMs: number;
  /** Insertion order, so that jobs due at the same time run in the order they were scheduled. */
  order: number;
  periodMs: number | undefined;
  work: () => unknown;
  cancelled: boolean;
}

/** Simulated time: moved only by `advanceTo`, which runs (and awaits) every job due on the way. */
export class LockstepSchedule implements Schedule {
  private nowMs: number;
  private jobs: Job[] = [];
  private nextOrder = 0;
  private advancing = false;

  constructor(startMs = 0) {
    checkDelay('the start time', startMs, true);
    this.nowMs = startMs;
  }

  now(): number {
    return this.nowMs;
  }

  every(periodMs: number, work: () => unknown): () => void {
    checkDelay('a period', periodMs, false);
    return this.add(periodMs, periodMs, work);
  }

  after(delayMs: number, work: () => unknown): () => void {
    checkDelay('a delay', delayMs, true);
    return this.add(delayMs, undefined, work);
  }

  /** Jobs waiting to run (cancelled ones excluded). */
  pending(): number {
    return this.jobs.filter((job) => !job.cancelled).length;
  }

  /**
   * Moves time to `targetMs`, running every job due on the way in time order (its clock reads the
   * job's due time while it runs) and waiting for each to finish. A job that fails rejects the call:
   * nothing scheduled may fail unseen. Jobs a job schedules run too if they fall due by the target.
   */
  async advanceTo(targetMs: number): Promise<void> {
    if (!Number.isFinite(targetMs) || targetMs < this.nowMs)
      throw new RangeError(`lockstep time moves forward only: ${targetMs} ms is before ${this.nowMs} ms`);
    if (this.advancing) throw new Error('the lockstep schedule is already advancing: await the call in progress first');
    this.advancing = true;
    try {
      for (;;) {
        const job = this.nextDue(targetMs);
        if (job === undefined) break;
        this.nowMs = job.dueMs;
        if (job.periodMs === undefined) this.remove(job);
        else job.dueMs += job.periodMs;
        await job.work();
      }
      this.nowMs = targetMs;
    } finally {
      this.advancing = false;
    }
  }

  private add(delayMs: number, periodMs: number | undefined, work: () => unknown): () => void {
    const job: Job = { dueMs: this.nowMs + delayMs, order: this.nextOrder++, periodMs, work, cancelled: false };
    this.jobs.push(job);
    return () => {
      job.cancelled = true;
      this.remove(job);
    };
  }

  private remove(job: Job): void {
    this.jobs = this.jobs.filter((other) => other !== job);
  }

  private nextDue(targetMs: number): Job | undefined {
    let next: Job | undefined;
    for (const job of this.jobs) {
      if (job.cancelled || job.dueMs > targetMs) continue;
      if (next === undefined || job.dueMs < next.dueMs || (job.dueMs === next.dueMs && job.order < next.order)) next = job;
    }
    return next;
  }
}
