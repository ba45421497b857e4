import { mkdtemp, rm, truncate } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { HeldPerception } from '../../test/fakes/heldPerception.ts';
import type { ReviewStatus } from '../core/contract.ts';
import { SwitchableLink } from '../links/switchableLink.ts';
import { Recorder } from '../recording/recorder.ts';
import { openReviewLog } from '../recording/reviewLog.ts';
import { ReviewSession, type OpenReviewLog } from './reviewSession.ts';

const T0_MS = 1_700_000_000_000;
let folder: string;

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-review-session-'));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** A closed log of scans in small chunks. */
async function recordScans(path: string, count: number): Promise<void> {
  const recorder = await Recorder.open({ path, chunkBytes: 2048 });
  for (let i = 0; i < count; i++) {
    const rangesM = new Float32Array(90).map((_, beam) => 1 + ((beam + i) % 7));
    recorder.record({
      topic: '/scan',
      receiveTimeMs: T0_MS + i * 10,
      sourceTimeMs: T0_MS + i * 10,
      msg: { kind: 'LaserScan', frameId: 'laser', angleMinRad: -1, angleMaxRad: 1, angleIncrementRad: 0.02, rangeMinM: 0.1, rangeMaxM: 10, rangesM },
    });
  }
  await recorder.close();
}

it('shows how far a log without a summary is indexed while open-moment opens it, and nothing once it is open', async () => {
  const first = join(folder, 'first.mcap');
  const crashed = join(folder, 'crashed.mcap');
  await recordScans(first, 50);
  await recordScans(crashed, 3000);
  const cutAt = 200_000;
  await truncate(crashed, cutAt);

  const seen: (ReviewStatus['indexing'] | undefined)[] = [];
  let review: ReviewSession | undefined;
  // Each progress report is seen as the cockpit sees it: in the review status, while the log opens.
  const openLog: OpenReviewLog = (path, options) =>
    openReviewLog(path, {
      onProgress: (fraction) => {
        options?.onProgress?.(fraction);
        seen.push(review!.status().indexing);
      },
    });
  const log = await openLog(first);
  const { replay, topics } = ReviewSession.replayOf(log);
  const link = new SwitchableLink(replay, undefined, topics);
  review = ReviewSession.attach(link, log, { openLog, perception: new HeldPerception(), recordingFolders: [folder] });
  try {
    seen.length = 0;
    expect(review.status().indexing).toBeUndefined();
    expect(review.openMoment(crashed, T0_MS + 1000)).toEqual({ ok: true });
    await review.close();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((indexing) => indexing?.fileName === 'crashed.mcap')).toBe(true);
    expect(seen.at(-1)?.fraction).toBe(1);
    expect(review.status().fileName).toBe('crashed.mcap');
    expect(review.status().indexing).toBeUndefined();
    expect(review.status().problems).toEqual([expect.stringMatching(/^the file ends mid-(chunk|record) at byte 200000: everything up to/)]);
  } finally {
    await link.close();
  }
});
