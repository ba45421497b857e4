// Arrivals per second over a sliding window (camera fps, scan rate), from arrival times.
export class RateMeter {
  readonly #arrivalsMs: number[] = [];

  constructor(private readonly windowMs = 1000) {}

  record(nowMs: number): void {
    this.#arrivalsMs.push(nowMs);
    this.#trim(nowMs);
  }

  /** The mean rate across the arrivals still in the window; 0 once they stop. */
  rateHz(nowMs: number): number {
    this.#trim(nowMs);
    const first = this.#arrivalsMs[0];
    const last = this.#arrivalsMs.at(-1);
    if (first === undefined || last === undefined || last === first) return 0;
    return ((this.#arrivalsMs.length - 1) * 1000) / (last - first);
  }

  #trim(nowMs: number): void {
    const oldestKeptMs = nowMs - this.windowMs;
    let drop = 0;
    while (drop < this.#arrivalsMs.length && this.#arrivalsMs[drop]! < oldestKeptMs) drop++;
    if (drop > 0) this.#arrivalsMs.splice(0, drop);
  }
}
