// A control that acts only after being held for a while (releasing the e-stop). Letting go early
// cancels; the action fires once per press, the moment the hold is long enough.
export class HoldToConfirm {
  #pressedAtMs: number | undefined;
  #fired = false;

  constructor(readonly holdMs: number) {}

  get isHeld(): boolean {
    return this.#pressedAtMs !== undefined;
  }

  press(nowMs: number): void {
    if (this.#pressedAtMs !== undefined) return;
    this.#pressedAtMs = nowMs;
    this.#fired = false;
  }

  /** 0 when not held, rising to 1 when the hold is long enough. */
  progress(nowMs: number): number {
    if (this.#pressedAtMs === undefined) return 0;
    return Math.min(1, Math.max(0, (nowMs - this.#pressedAtMs) / this.holdMs));
  }

  /** Returns how long it was held the first time the hold is long enough, otherwise undefined. */
  poll(nowMs: number): number | undefined {
    if (this.#pressedAtMs === undefined || this.#fired) return undefined;
    const heldMs = nowMs - this.#pressedAtMs;
    if (heldMs < this.holdMs) return undefined;
    this.#fired = true;
    return heldMs;
  }

  /** Lets go. Returns the held time if this release completes the hold (it had not fired yet). */
  release(nowMs: number): number | undefined {
    const heldMs = this.poll(nowMs);
    this.cancel();
    return heldMs;
  }

  cancel(): void {
    this.#pressedAtMs = undefined;
    this.#fired = false;
  }
}
