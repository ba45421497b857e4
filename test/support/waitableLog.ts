// A list of things as they happen (messages, commands) that a test can wait on: `until` resolves once
// a check on the list holds, or fails at its deadline, so tests synchronise on events, not sleeps.
export class WaitableLog<T> {
  readonly items: T[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(private readonly name: string) {}

  push(item: T): void {
    this.items.push(item);
    for (const wake of [...this.waiters]) wake();
  }

  until(check: (items: readonly T[]) => boolean, what: string, timeoutMs = 5000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.name}: ${this.items.length} so far)`));
      }, timeoutMs);
      const wake = () => {
        if (!check(this.items)) return;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      wake();
    });
  }
}
