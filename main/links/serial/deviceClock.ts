// Puts device timestamps on the cockpit's clock (PROTOCOL.md §4): unwraps the 32-bit µs counter and
// estimates the offset as the windowed minimum of (receive time − device time), the sample that
// spent least time in transit. A window, not an all-time minimum, so crystal drift is followed.

const WRAP_US = 2 ** 32;

export interface DeviceClockOptions {
  windowMs: number;
}

export class DeviceClock {
  private readonly windowMs: number;
  private lastRawUs: number | undefined;
  private wrapsUs = 0;
  /** (receive time, offset) pairs with increasing offsets: the front is the window's minimum. */
  private readonly candidates: Array<{ receiveTimeMs: number; offsetMs: number }> = [];

  constructor(options: Partial<DeviceClockOptions> = {}) {
    this.windowMs = options.windowMs ?? 10_000;
  }

  /** Takes one device stamp and when it arrived; returns the stamp on the cockpit's clock, in ms. */
  observe(deviceTimeUs: number, receiveTimeMs: number): number {
    const deviceTimeMs = this.unwrapUs(deviceTimeUs) / 1000;
    const offsetMs = receiveTimeMs - deviceTimeMs;
    while (this.candidates.length > 0 && this.candidates.at(-1)!.offsetMs >= offsetMs) this.candidates.pop();
    this.candidates.push({ receiveTimeMs, offsetMs });
    while (this.candidates[0]!.receiveTimeMs < receiveTimeMs - this.windowMs) this.candidates.shift();
    return deviceTimeMs + this.candidates[0]!.offsetMs;
  }

  /** Current estimate of cockpit time minus device time, in ms; undefined before the first stamp. */
  offsetMs(): number | undefined {
    return this.candidates[0]?.offsetMs;
  }

  /** The device restarted (a new HELLO_REPLY): its clock began again. */
  reset(): void {
    this.lastRawUs = undefined;
    this.wrapsUs = 0;
    this.candidates.length = 0;
  }

  private unwrapUs(rawUs: number): number {
    if (this.lastRawUs !== undefined && rawUs < this.lastRawUs) {
      // A big step back is the counter wrapping; a small one is a reordered or restarted device,
      // which the offset window absorbs.
      if (this.lastRawUs - rawUs > WRAP_US / 2) this.wrapsUs += WRAP_US;
    }
    this.lastRawUs = rawUs;
    return this.wrapsUs + rawUs;
  }
}
