// A Clock that only moves when a test tells it to. Lives in test/fakes: only tests import it.
import type { Clock, TimerId } from '../../renderer/src/lib/clock.ts';

interface PendingTimer {
  dueMs: number;
  periodMs: number | undefined;
  callback: () => void;
}

export class ManualClock implements Clock {
  #nowMs = 0;
  #nextId = 1;
  readonly #timers = new Map<TimerId, PendingTimer>();

  constructor(private readonly epochBaseMs = 1_700_000_000_000) {}

  nowMs(): number {
    return this.#nowMs;
  }

  epochMs(): number {
    return this.epochBaseMs + this.#nowMs;
  }

  setTimeout(callback: () => void, delayMs: number): TimerId {
    return this.#add({ dueMs: this.#nowMs + Math.max(0, delayMs), periodMs: undefined, callback });
  }

  clearTimeout(id: TimerId): void {
    this.#timers.delete(id);
  }

  setInterval(callback: () => void, periodMs: number): TimerId {
    const period = Math.max(1, periodMs);
    return this.#add({ dueMs: this.#nowMs + period, periodMs: period, callback });
  }

  clearInterval(id: TimerId): void {
    this.#timers.delete(id);
  }

  /** Number of timers still pending. */
  get pendingCount(): number {
    return this.#timers.size;
  }

  /** Moves time forward, firing every timer that falls due on the way, in order. */
  advance(ms: number): void {
    const endMs = this.#nowMs + ms;
    for (;;) {
      const next = this.#earliestDue(endMs);
      if (!next) break;
      const [id, timer] = next;
      this.#nowMs = timer.dueMs;
      if (timer.periodMs === undefined) this.#timers.delete(id);
      else timer.dueMs += timer.periodMs;
      timer.callback();
    }
    this.#nowMs = endMs;
  }

  #add(timer: PendingTimer): TimerId {
    const id = this.#nextId++;
    this.#timers.set(id, timer);
    return id;
  }

  #earliestDue(endMs: number): [TimerId, PendingTimer] | undefined {
    let best: [TimerId, PendingTimer] | undefined;
    for (const entry of this.#timers) {
      if (entry[1].dueMs > endMs) continue;
      if (!best || entry[1].dueMs < best[1].dueMs) best = entry;
    }
    return best;
  }
}
