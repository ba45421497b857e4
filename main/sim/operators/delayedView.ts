// What an operator has taken in by now: each tick is seen a reaction time after it happened, to the
// nearest tick. The view never runs backwards: when the reaction time grows, the operator keeps
// looking at what it saw last until the world catches up.

/** Half a 100 ms control tick: a tick this close to the moment looked for is the one seen. */
const NEAREST_TICK_SECS = 0.05;

export class DelayedView<T> {
  /** Oldest first; once something has been seen, the first entry is the one seen last. */
  private entries: Array<{ atSecs: number; item: T }> = [];
  private seenAny = false;

  push(atSecs: number, item: T): void {
    this.entries.push({ atSecs, item });
  }

  /** The latest entry from no later than `asOfSecs` (to the nearest tick), or undefined while there is none yet. */
  seen(asOfSecs: number): T | undefined {
    let found = -1;
    for (let i = 0; i < this.entries.length && this.entries[i]!.atSecs <= asOfSecs + NEAREST_TICK_SECS; i++) found = i;
    if (found < 0) return this.seenAny ? this.entries[0]?.item : undefined;
    this.entries.splice(0, found);
    this.seenAny = true;
    return this.entries[0]!.item;
  }

  clear(): void {
    this.entries = [];
    this.seenAny = false;
  }
}
