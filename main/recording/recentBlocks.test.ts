import type { McapTypes } from '@mcap/core';
import { describe, expect, it } from 'vitest';
import type { LogBlock } from './logBlocks.ts';
import { RecentBlocks } from './recentBlocks.ts';

function block(offset: number, length = 100): LogBlock {
  return { offset, length, startNs: BigInt(offset), endNs: BigInt(offset + 1), channelIds: undefined, chunkNumber: offset };
}

function messages(dataBytes: number): McapTypes.Message[] {
  return [{ channelId: 1, sequence: 0, logTime: 1n, publishTime: 1n, data: new Uint8Array(dataBytes) }];
}

describe('RecentBlocks', () => {
  it('reads a block once for reads asked at the same time and soon after', async () => {
    const recent = new RecentBlocks();
    const reads: number[] = [];
    const read = async (b: LogBlock) => {
      reads.push(b.offset);
      return messages(10);
    };
    const a = block(0);
    const [first, second] = await Promise.all([recent.get(a, read), recent.get(a, read)]);
    expect(second).toBe(first);
    await recent.get(a, read);
    expect(reads).toEqual([0]);
  });

  it('keeps at most its bytes, counting a block by what its messages hold, least recently used out first', async () => {
    const recent = new RecentBlocks(1000, 8);
    const reads: number[] = [];
    const read = async (b: LogBlock) => {
      reads.push(b.offset);
      return messages(400);
    };
    const [a, b, c] = [block(0), block(1), block(2)];
    await recent.get(a, read);
    await recent.get(b, read);
    await recent.get(a, read); // a is now the most recent
    await recent.get(c, read); // 1200 bytes: b goes
    expect(recent.heldBytes).toBe(800);
    await recent.get(a, read);
    await recent.get(b, read);
    expect(reads).toEqual([0, 1, 2, 1]);
  });

  it('keeps at most its count of blocks, and always the newest, however large', async () => {
    const recent = new RecentBlocks(1000, 2);
    const reads: number[] = [];
    const read = async (b: LogBlock) => {
      reads.push(b.offset);
      return messages(b.offset === 9 ? 5000 : 10);
    };
    for (const offset of [0, 1, 2]) await recent.get(block(offset), read);
    await recent.get(block(0), read);
    expect(reads).toEqual([0, 1, 2, 0]);
    const huge = block(9);
    await recent.get(huge, read);
    expect(recent.heldBytes).toBe(5000);
    await recent.get(huge, read);
    expect(reads).toEqual([0, 1, 2, 0, 9]);
  });

  it('does not keep a read that failed: the next read tries again', async () => {
    const recent = new RecentBlocks();
    const a = block(0);
    let tries = 0;
    const read = async () => {
      tries++;
      if (tries === 1) throw new Error('fails its CRC check');
      return messages(10);
    };
    await expect(recent.get(a, read)).rejects.toThrow('CRC');
    expect(recent.heldBytes).toBe(0);
    expect(await recent.get(a, read)).toHaveLength(1);
    expect(tries).toBe(2);
  });
});
