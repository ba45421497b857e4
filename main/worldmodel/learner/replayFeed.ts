// The learner's side of memory: which runs of ticks it can replay, and a training batch drawn from
// them. The index is re-read only every so many new ticks (it is a scan of the table), or as soon as
// ticks arrive while no sequence is long enough yet.
import type { Memory } from '../../memory/memory.ts';
import { loadReplayIndex } from '../../memory/replayIndex.ts';
import { ReplaySampler } from '../../memory/replaySampler.ts';
import { readSequences } from '../../memory/replaySequences.ts';
import type { TickSpace } from '../../memory/tickSchema.ts';
import type { TickStore } from '../../memory/tickStore.ts';
import { batchFromSequences } from '../replayBatch.ts';
import type { TrainingBatch } from '../rssm.ts';
import type { WorldModelConfig } from '../worldModelConfig.ts';

export interface ReplayFeedOptions {
  sequenceLength: number;
  refreshTicks: number;
  seed: number;
}

export class ReplayFeed {
  private sampler: ReplaySampler | undefined;
  private ticksSinceRefresh = 0;
  private refreshes = 0;

  private constructor(
    private readonly memory: Memory,
    private readonly store: TickStore,
    private readonly options: ReplayFeedOptions,
  ) {}

  static async open(memory: Memory, space: TickSpace, options: ReplayFeedOptions): Promise<ReplayFeed> {
    return new ReplayFeed(memory, await memory.ticks(space), options);
  }

  /** Distinct sequences the present index can give; 0 until one episode is long enough. */
  get sequenceCount(): number {
    return this.sampler?.sequenceCount ?? 0;
  }

  noteTicksWritten(count: number): void {
    this.ticksSinceRefresh += count;
  }

  /** The index may point at rows that moved (memory compacted them): read it again before the next draw. */
  markStale(): void {
    this.ticksSinceRefresh = Math.max(this.ticksSinceRefresh, this.options.refreshTicks);
  }

  needsRefresh(): boolean {
    return this.sampler === undefined || this.ticksSinceRefresh >= this.options.refreshTicks || (this.sequenceCount === 0 && this.ticksSinceRefresh > 0);
  }

  /** Re-reads the index at the table's newest version. */
  async refresh(): Promise<void> {
    // This connection was opened without read consistency: without a refresh it keeps reading the
    // versions it first saw, and never the ticks (or segments) the control loop has written since.
    const counted = this.ticksSinceRefresh;
    await this.store.refresh();
    await this.memory.records.corrections.checkoutLatest();
    const index = await loadReplayIndex(this.store, this.memory.records);
    this.sampler = new ReplaySampler(index, { sequenceLength: this.options.sequenceLength, seed: this.options.seed + this.refreshes++ });
    // Ticks noted while the index was being read may not be in it: they still count toward the next refresh.
    this.ticksSinceRefresh = Math.max(0, this.ticksSinceRefresh - counted);
  }

  /** `count` sequences drawn and read back as one batch; call only when `sequenceCount` > 0. */
  async batch(count: number, config: WorldModelConfig): Promise<TrainingBatch> {
    const refs = this.sampler?.sample(count) ?? [];
    if (refs.length === 0) throw new Error('replay: no sequence is long enough to draw from yet');
    const sequences = await readSequences(this.store, refs);
    return batchFromSequences(sequences, config);
  }

  tickCount(): Promise<number> {
    return this.store.countRows();
  }
}
