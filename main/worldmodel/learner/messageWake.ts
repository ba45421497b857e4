// A promise the training loop awaits while it has nothing to do, settled by the next message that
// could change that (new ticks, resume, stop). The worker then sleeps in the event loop instead of
// polling, and wakes the moment the control loop says something.
export class MessageWake {
  private wake: (() => void) | undefined;

  /** Resolves at the next `notify`; a notify before anyone waits is not kept (callers re-check). */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
