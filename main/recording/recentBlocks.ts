// The messages of the blocks a review read last, kept for the next few reads: a seek asks for the
// latest message of every stream at once (camera, scan, odometry, mostly in the same chunk), and
// playback then starts in that chunk again. Reads of a block already in flight share one read. Bounded
// by bytes and by count, least recently used first out, so a log of any size holds at most this much.
import type { McapTypes } from '@mcap/core';
import type { LogBlock } from './logBlocks.ts';

export const RECENT_BLOCKS_MAX_BYTES = 16 * 1024 ** 2;
export const RECENT_BLOCKS_MAX_COUNT = 8;

export class RecentBlocks {
  private readonly entries = new Map<LogBlock, { messages: Promise<McapTypes.Message[]>; bytes: number }>();
  private bytes = 0;

  constructor(
    private readonly maxBytes = RECENT_BLOCKS_MAX_BYTES,
    private readonly maxCount = RECENT_BLOCKS_MAX_COUNT,
  ) {}

  /** The block's messages, from here when read lately, else through `read` (a failed read is not kept). */
  get(block: LogBlock, read: (block: LogBlock) => Promise<McapTypes.Message[]>): Promise<McapTypes.Message[]> {
    const kept = this.entries.get(block);
    if (kept !== undefined) {
      this.entries.delete(block);
      this.entries.set(block, kept);
      return kept.messages;
    }
    // Counted at its size on disk until read, then at what its messages hold (a decompressed chunk is larger).
    const entry = { messages: read(block), bytes: block.length };
    this.entries.set(block, entry);
    this.bytes += entry.bytes;
    entry.messages.then(
      (messages) => {
        if (this.entries.get(block) !== entry) return;
        const held = Math.max(
          block.length,
          messages.reduce((sum, message) => sum + message.data.byteLength, 0),
        );
        this.bytes += held - entry.bytes;
        entry.bytes = held;
        this.evict();
      },
      () => this.drop(block, entry),
    );
    this.evict();
    return entry.messages;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** How many bytes the kept blocks hold (for tests). */
  get heldBytes(): number {
    return this.bytes;
  }

  private evict(): void {
    for (const [block, entry] of this.entries) {
      if (this.entries.size <= 1 || (this.bytes <= this.maxBytes && this.entries.size <= this.maxCount)) return;
      this.drop(block, entry);
    }
  }

  private drop(block: LogBlock, entry: { bytes: number }): void {
    if (this.entries.get(block) !== entry) return;
    this.entries.delete(block);
    this.bytes -= entry.bytes;
  }
}
