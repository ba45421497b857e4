// The injected sensor faults that are in force, and what they do to publishing: a frozen camera, a
// blind LiDAR, one stream flooding far above its rate, and a stall that silences everything. Each
// lasts a span of simulated time, (start, start + duration], counted in physics steps.
import type { SimInjection } from './injection.ts';
import type { SensorStream } from './sensorStream.ts';

export type SensorFaultInjection = Extract<SimInjection, { kind: 'freeze-camera' | 'blackout-lidar' | 'flood' | 'stall' }>;

interface Flood {
  rateHz: number;
  startSecs: number;
  untilSecs: number;
}

/** Step times within this of a boundary count as on it (float rounding only). */
const TIME_TOLERANCE_SECS = 1e-9;

export class SensorFaults {
  private cameraFrozenUntilSecs = -Infinity;
  private cameraFreezeFreshNoise = false;
  private lidarBlindUntilSecs = -Infinity;
  private stalledUntilSecs = -Infinity;
  private readonly floods = new Map<SensorStream, Flood>();

  /** Starts a fault now; a second fault of the same kind (and stream) replaces the first. */
  start(injection: SensorFaultInjection, nowSecs: number): void {
    const untilSecs = nowSecs + injection.durationMs / 1000;
    switch (injection.kind) {
      case 'freeze-camera':
        this.cameraFrozenUntilSecs = untilSecs;
        this.cameraFreezeFreshNoise = injection.freshNoise === true;
        return;
      case 'blackout-lidar':
        this.lidarBlindUntilSecs = untilSecs;
        return;
      case 'stall':
        this.stalledUntilSecs = untilSecs;
        return;
      case 'flood':
        this.floods.set(injection.stream, { rateHz: injection.rateHz, startSecs: nowSecs, untilSecs });
        return;
    }
  }

  cameraFrozen(nowSecs: number): boolean {
    return nowSecs <= this.cameraFrozenUntilSecs + TIME_TOLERANCE_SECS;
  }

  /** Whether the freeze in force redraws its frame with fresh pixel noise rather than repeating it. */
  cameraFreezeRedrawn(nowSecs: number): boolean {
    return this.cameraFrozen(nowSecs) && this.cameraFreezeFreshNoise;
  }

  lidarBlind(nowSecs: number): boolean {
    return nowSecs <= this.lidarBlindUntilSecs + TIME_TOLERANCE_SECS;
  }

  /**
   * The stamps at which a stream publishes in the physics step that ends at nowSecs: none while
   * stalled; a flood's own due times while it floods (several per step above the physics rate);
   * otherwise the step's end if the stream's schedule was due.
   */
  publishTimesSecs(stream: SensorStream, nowSecs: number, stepSecs: number, scheduleDue: boolean): number[] {
    if (nowSecs <= this.stalledUntilSecs + TIME_TOLERANCE_SECS) return [];
    const flood = this.floods.get(stream);
    if (flood === undefined) return scheduleDue ? [nowSecs] : [];
    const timesSecs = floodTimesSecs(flood, nowSecs - stepSecs, nowSecs);
    if (nowSecs > flood.untilSecs + TIME_TOLERANCE_SECS) {
      // The flood ended within this step: its last due times, then the stream's own schedule again.
      this.floods.delete(stream);
      if (scheduleDue) timesSecs.push(nowSecs);
    }
    return timesSecs;
  }
}

/** The flood's due times start + k/rate (k ≥ 1) that fall in (fromSecs, toSecs] and within its span. */
function floodTimesSecs(flood: Flood, fromSecs: number, toSecs: number): number[] {
  const dueIndex = (timeSecs: number): number => Math.floor((Math.min(timeSecs, flood.untilSecs) - flood.startSecs) * flood.rateHz + TIME_TOLERANCE_SECS);
  const times: number[] = [];
  for (let index = Math.max(1, dueIndex(fromSecs) + 1); index <= dueIndex(toSecs); index++) {
    times.push(flood.startSecs + index / flood.rateHz);
  }
  return times;
}
