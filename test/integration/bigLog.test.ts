// Big logs (issue 28): a 5 GiB log of camera frames, odometry and scans, written as the recorder
// writes one, opens for review and seeks to its middle in under 10 s, with and without its summary
// (cut where its data ends, as a crash leaves it), and the reviewing process's peak resident memory
// stays within that of reviewing a 50 MiB log made the same way + 150 MiB. Each review runs in a
// process of its own (test/support/bigLogReview.ts) so its memory is its own. Without a summary,
// the log is indexed in one pass that tells its progress. The files are deleted after. Runs in
// about a minute, most of it writing 5 GiB; it needs 5.1 GiB free in the temporary folder.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAMERA, withoutSummary, writeBigLog, type BigLog } from '../support/bigLog.ts';
import type { BigLogReviewReport } from '../support/bigLogReview.ts';

const MIB = 1024 ** 2;
const BIG_BYTES = 5 * 1024 * MIB;
const CUT_BYTES = 50 * MIB;
const OPEN_AND_SEEK_LIMIT_MS = 10_000;
const MEMORY_ALLOWANCE_BYTES = 150 * MIB;
const CAMERA_PERIOD_MS = 1000 / CAMERA.rateHz;
const REVIEW_SCRIPT = fileURLToPath(new URL('../support/bigLogReview.ts', import.meta.url));

let folder: string;
let big: BigLog;
let cut: BigLog;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'reins-big-log-'));
  const { bavail, bsize } = await statfs(folder);
  const needed = BIG_BYTES + CUT_BYTES + 256 * MIB;
  if (bavail * bsize < needed)
    throw new Error(`this test writes a 5 GiB log: ${folder} has ${Math.floor((bavail * bsize) / MIB)} MiB free of the ${needed / MIB} it needs`);
  cut = await writeBigLog(join(folder, 'cut.mcap'), CUT_BYTES);
  big = await writeBigLog(join(folder, 'big.mcap'), BIG_BYTES);
}, 300_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Reviews the log in a process of its own: what it measured. */
function reviewInChild(path: string): Promise<BigLogReviewReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', REVIEW_SCRIPT, path, CAMERA.topic], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code !== 0) reject(new Error(`the review of ${path} exited (${code ?? signal}); stderr:\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as BigLogReviewReport);
    });
  });
}

function expectReviewed(report: BigLogReviewReport, log: BigLog): void {
  expect(report.startMs).toBe(log.startMs);
  expect(report.endMs).toBeCloseTo(log.endMs, 3);
  expect(report.cameraCount).toBe(log.cameraFrames);
  // The frame shown at the middle is the last one logged at or before it (stamped 5 ms before it was logged).
  const middleMs = (log.startMs + log.endMs) / 2;
  expect(report.frameStampMs).toBeLessThanOrEqual(middleMs);
  expect(report.frameStampMs).toBeGreaterThan(middleMs - CAMERA_PERIOD_MS - 5 - 1);
  expect(report.frameBytes).toBe(CAMERA.widthPx * CAMERA.heightPx * 3);
  expect(report.framesPlayed).toBe(20);
}

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(0)} MiB`;
}

describe('a 5 GiB log', () => {
  it('opens through its summary and seeks to its middle in under 10 s, within the memory of a 50 MiB cut + 150 MiB', async () => {
    const small = await reviewInChild(cut.path);
    const large = await reviewInChild(big.path);
    console.info(
      `with a summary: 5 GiB opened in ${large.openMs.toFixed(0)} ms, sought in ${large.seekMs.toFixed(0)} ms, peak ${mib(large.maxRssBytes)}; 50 MiB: peak ${mib(small.maxRssBytes)}`,
    );
    expectReviewed(small, cut);
    expectReviewed(large, big);
    expect(large.problems).toEqual([]);
    expect(large.progress).toEqual([]);
    expect(large.openMs + large.seekMs).toBeLessThan(OPEN_AND_SEEK_LIMIT_MS);
    expect(large.maxRssBytes).toBeLessThanOrEqual(small.maxRssBytes + MEMORY_ALLOWANCE_BYTES);
  }, 120_000);

  it('without a summary, is indexed in one pass that tells its progress, and seeks to its middle in under 10 s within the same memory', async () => {
    const small = await reviewInChild((await withoutSummary(cut)).path);
    const large = await reviewInChild((await withoutSummary(big)).path);
    console.info(
      `without a summary: 5 GiB indexed in ${large.openMs.toFixed(0)} ms (${large.progress.length} progress reports), sought in ${large.seekMs.toFixed(0)} ms, peak ${mib(large.maxRssBytes)}; 50 MiB: peak ${mib(small.maxRssBytes)}`,
    );
    expectReviewed(small, cut);
    expectReviewed(large, big);
    expect(large.problems).toEqual([
      expect.stringMatching(new RegExp(`^the log stops at byte ${big.dataEndBytes} without its summary \\(the session did not close cleanly\\)`)),
    ]);
    expect(large.progress.length).toBeGreaterThan(2);
    expect(large.progress).toEqual([...large.progress].sort((a, b) => a - b));
    expect(large.progress.at(-1)).toBe(1);
    expect(large.openMs + large.seekMs).toBeLessThan(OPEN_AND_SEEK_LIMIT_MS);
    expect(large.maxRssBytes).toBeLessThanOrEqual(small.maxRssBytes + MEMORY_ALLOWANCE_BYTES);
  }, 120_000);
});
