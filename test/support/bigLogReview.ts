// Reviews one log in its own process, so that its resident memory is its own: opens it as `reins
// review` does, seeks a replay to the middle and waits for the camera frame there, plays a few seconds
// of it at 8×, and prints what it measured as one JSON line: times, the peak resident memory, the
// progress reports it was given while opening, and the frame's log time.
import { openReviewFile } from '../../main/recording/reviewFile.ts';
import { ReplayLink } from '../../main/links/replay/replayLink.ts';
import type { Image, Received } from '../../main/core/messages.ts';

export interface BigLogReviewReport {
  openMs: number;
  seekMs: number;
  playMs: number;
  /** Peak resident memory of the process, in bytes. */
  maxRssBytes: number;
  progress: number[];
  problems: readonly string[];
  startMs: number;
  endMs: number;
  chunkCount: number;
  cameraCount: number;
  /** The header stamp (ms) of the frame delivered at the seek, and its size. */
  frameStampMs: number;
  frameBytes: number;
  framesPlayed: number;
}

const [path, cameraTopic] = process.argv.slice(2) as [string, string];
const PLAYED_FRAMES = 20;

const progress: number[] = [];
const openedAt = performance.now();
const log = await openReviewFile(path, { onProgress: (fraction) => progress.push(fraction) });
const openMs = performance.now() - openedAt;

const replay = new ReplayLink(log);
let onFrame: ((received: Received<Image>) => void) | undefined;
replay.subscribe<Image>(cameraTopic, (received) => onFrame?.(received));
const nextFrames = (count: number) =>
  new Promise<Received<Image>[]>((resolve) => {
    const frames: Received<Image>[] = [];
    onFrame = (received) => {
      frames.push(received);
      if (frames.length === count) resolve(frames);
    };
  });

const middleMs = (log.startMs + log.endMs) / 2;
const seekedAt = performance.now();
const atSeek = nextFrames(1);
replay.seek(middleMs);
const [frame] = await atSeek;
const seekMs = performance.now() - seekedAt;

const playedAt = performance.now();
const played = nextFrames(PLAYED_FRAMES);
replay.setSpeed(8);
replay.play();
const frames = await played;
replay.pause();
const playMs = performance.now() - playedAt;

await replay.close();
await log.close();
const report: BigLogReviewReport = {
  openMs,
  seekMs,
  playMs,
  maxRssBytes: process.resourceUsage().maxRSS * 1024,
  progress,
  problems: log.problems,
  startMs: log.startMs,
  endMs: log.endMs,
  chunkCount: log.summary.chunkCount,
  cameraCount: log.summary.topics.find((topic) => topic.topic === cameraTopic)?.messageCount ?? 0,
  frameStampMs: stampMs(frame!.raw),
  frameBytes: frame!.msg.data.byteLength,
  framesPlayed: frames.length,
};
process.stdout.write(`${JSON.stringify(report)}\n`);

function stampMs(raw: unknown): number {
  const stamp = (raw as { header?: { stamp?: { sec: number; nsec: number } } }).header?.stamp;
  return stamp === undefined ? Number.NaN : stamp.sec * 1000 + stamp.nsec / 1e6;
}
