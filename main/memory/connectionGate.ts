// Writes to the memory's tables pass a gate that Memory.reconnect() closes while it moves the tables to
// a fresh connection: it waits for the writes in flight, opens the new handles (which then see every
// commit), swaps them in and opens the gate again. Writes arriving meanwhile wait; reads do not.
export class ConnectionGate {
  private readonly inFlight = new Set<Promise<unknown>>();
  private closedUntil: Promise<void> | undefined;

  /** Runs a write once the gate is open; the gate stays closed to exclusive() until it settles. */
  async run<T>(write: () => Promise<T>): Promise<T> {
    while (this.closedUntil !== undefined) await this.closedUntil;
    const running = write();
    this.inFlight.add(running);
    const settled = (): void => void this.inFlight.delete(running);
    running.then(settled, settled);
    return running;
  }

  /** Closes the gate, waits for the writes in flight, runs work, opens the gate; one at a time. */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    while (this.closedUntil !== undefined) await this.closedUntil;
    let open!: () => void;
    this.closedUntil = new Promise<void>((resolve) => (open = resolve));
    try {
      await Promise.allSettled([...this.inFlight]);
      return await work();
    } finally {
      this.closedUntil = undefined;
      open();
    }
  }
}
