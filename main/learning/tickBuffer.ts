// The recent ticks the learners train from, in memory: features (the embedding) as one flat array,
// the command in effect after each tick, who drove, and where the tick sits (episode and step). A
// ring: when full, the oldest tick goes. Segments are looked up by episode and step.
import type { Driver } from '../core/tickReport.ts';
import type { DriveCommand } from '../core/messages.ts';
import type { Segment } from './feedbackTypes.ts';

export interface BufferedTick {
  episodeId: string;
  step: number;
  embedding: Float32Array;
  action: DriveCommand;
  driver: Driver;
}

export class TickBuffer {
  readonly embeddings: Float32Array;
  readonly actions: Float32Array;
  readonly drivers: Driver[];
  readonly episodeIds: string[];
  readonly steps: Int32Array;
  /** The number in order of adding (`total` before it came) of the tick each slot holds. */
  private readonly sequence: Float64Array;
  /** Ticks ever added; slot = added % capacity. */
  private added = 0;
  /** Slot of each (episode, step) still held. */
  private readonly slots = new Map<string, number>();

  constructor(
    readonly capacity: number,
    readonly embeddingSize: number,
  ) {
    if (!(Number.isInteger(capacity) && capacity >= 1)) throw new RangeError(`tick buffer capacity must be a whole number ≥ 1, got ${capacity}`);
    this.embeddings = new Float32Array(capacity * embeddingSize);
    this.actions = new Float32Array(capacity * 2);
    // Committed now: a fresh array's pages become resident only when first written, so the ring
    // would otherwise look like memory growing for as long as it takes to fill (30 minutes at the
    // default capacity), and a machine short of memory would find out then rather than at start.
    this.embeddings.fill(0);
    this.actions.fill(0);
    this.drivers = new Array<Driver>(capacity).fill('idle');
    this.episodeIds = new Array<string>(capacity).fill('');
    this.steps = new Int32Array(capacity);
    this.sequence = new Float64Array(capacity);
  }

  get size(): number {
    return Math.min(this.added, this.capacity);
  }

  /** Ticks ever added (the oldest may be gone). */
  get total(): number {
    return this.added;
  }

  add(tick: BufferedTick): void {
    if (tick.embedding.length !== this.embeddingSize)
      throw new RangeError(`tick buffer: embedding of ${tick.embedding.length} values, expected ${this.embeddingSize}`);
    const slot = this.added % this.capacity;
    if (this.added >= this.capacity) this.slots.delete(key(this.episodeIds[slot]!, this.steps[slot]!));
    this.embeddings.set(tick.embedding, slot * this.embeddingSize);
    this.actions[slot * 2] = tick.action.linearMps;
    this.actions[slot * 2 + 1] = tick.action.angularRadps;
    this.drivers[slot] = tick.driver;
    this.episodeIds[slot] = tick.episodeId;
    this.steps[slot] = tick.step;
    this.sequence[slot] = this.added;
    this.slots.set(key(tick.episodeId, tick.step), slot);
    this.added++;
  }

  /** The slot holding a tick, or undefined when it is gone or never came. */
  slotOf(episodeId: string, step: number): number | undefined {
    return this.slots.get(key(episodeId, step));
  }

  /** Slots of every tick in the segment, or undefined when any of them is gone. */
  segmentSlots(segment: Segment): number[] | undefined {
    const slots: number[] = [];
    for (let step = segment.startStep; step <= segment.endStep; step++) {
      const slot = this.slotOf(segment.episodeId, step);
      if (slot === undefined) return undefined;
      slots.push(slot);
    }
    return slots;
  }

  /** Slots of the `length` ticks of one episode ending with the tick in `lastSlot`, or undefined when any is gone. */
  runEndingAt(lastSlot: number, length: number): number[] | undefined {
    const endStep = this.steps[lastSlot]!;
    return this.segmentSlots({ episodeId: this.episodeIds[lastSlot]!, startStep: endStep - length + 1, endStep });
  }

  /** The command in effect after the tick in `slot`. */
  commandAt(slot: number): DriveCommand {
    return { linearMps: this.actions[slot * 2]!, angularRadps: this.actions[slot * 2 + 1]! };
  }

  /** Whether the slot still holds the tick it held when `total` ticks had been added (none came into it since). */
  unchangedSince(slot: number, total: number): boolean {
    return this.sequence[slot]! < total;
  }

  /** Slots held, oldest first, whose driver passes `keep`. */
  slotsWhere(keep: (driver: Driver, slot: number) => boolean): number[] {
    const slots: number[] = [];
    const first = Math.max(0, this.added - this.capacity);
    for (let index = first; index < this.added; index++) {
      const slot = index % this.capacity;
      if (keep(this.drivers[slot]!, slot)) slots.push(slot);
    }
    return slots;
  }

  /** The embeddings at `slots`, row after row. */
  gather(slots: readonly number[]): Float32Array {
    const size = this.embeddingSize;
    const out = new Float32Array(slots.length * size);
    slots.forEach((slot, row) => out.set(this.embeddings.subarray(slot * size, (slot + 1) * size), row * size));
    return out;
  }
}

function key(episodeId: string, step: number): string {
  return `${episodeId}\u0000${step}`;
}
