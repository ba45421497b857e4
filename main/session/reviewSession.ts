// Review mode's controls (DESIGN §5 replay): one recorded log at a time played through the loop by a
// ReplayLink behind the loop's switchable link; the log's timeline; "find similar moments", which
// encodes the log's moment with the current encoders and searches the memory across sessions; and
// opening a found moment, in its own log when it lives in another. Nothing here drives a robot.
import { STREAM_ROLES, type ObservationFrame, type StreamRole } from '../core/frame.ts';
import { existsSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { ReviewStatus, ReviewTimelineResponse, SimilarMoment, SimilarMomentsResponse } from '../core/contract.ts';
import type { CompiledFieldPath } from '../core/fieldPath.ts';
import { readFieldSeries, type FieldSeriesResult } from '../recording/fieldSeries.ts';
import type { ReviewControl } from '../api/cockpitService.ts';
import type { TopicMap } from '../core/link.ts';
import type { Image, Imu, JointState, LaserScan, Odometry, Received, RobotMessage } from '../core/messages.ts';
import { ReplayLink, replayTopics, type ReplaySource } from '../links/replay/replayLink.ts';
import type { SwitchableLink } from '../links/switchableLink.ts';
import { DEFAULT_STALENESS_MS } from '../loop/synchroniser.ts';
import type { Memory } from '../memory/memory.ts';
import { nearestMoments } from '../memory/tickSearch.ts';
import type { Perception } from '../core/perception.ts';
import { buildTimeline, type TimelineSource } from '../recording/reviewTimeline.ts';
import { reviewTopicMap, roleChoices, topicMapOf, type ReviewTopicChoice } from './reviewTopics.ts';

/** An opened log, as review needs it. */
export type ReviewLog = ReplaySource & TimelineSource & { close(): Promise<void> };

/** Opens a log; `onProgress` is told the fraction read while a log without a usable summary is indexed. */
export type OpenReviewLog = (path: string, options?: { onProgress?: (fraction: number) => void }) => Promise<ReviewLog>;

export interface ReviewSessionOptions {
  openLog: OpenReviewLog;
  perception: Pick<Perception, 'encode' | 'version' | 'embeddingSize'>;
  /** The memory searched for similar moments; undefined: the search says there is none. */
  memory?: Pick<Memory, 'ticks' | 'tickSpaces'>;
  /** Folders whose logs may be opened besides those a search returned (the recordings folder). */
  recordingFolders?: readonly string[];
  /** How many matches a search returns. */
  matches?: number;
  /** Matches this close in time to the query, in its own log, are the query itself and are left out. */
  sameMomentMs?: number;
  /** Told when a log could not be opened or read, in words. */
  onProblem?: (message: string) => void;
  /** The operator's choice of topic for some roles (`--topic-map`), already checked against the first log. */
  topicChoice?: ReviewTopicChoice;
  /** The replayed ticks are written to memory (`--rescore`). */
  rescoring?: boolean;
}

const DEFAULT_MATCHES = 8;
const DEFAULT_SAME_MOMENT_MS = 3000;

export class ReviewSession implements ReviewControl {
  private replay: ReplayLink;
  private log: ReviewLog;
  private timelineCache: Promise<ReviewTimelineResponse> | undefined;
  /** Logs a search has pointed at: open-moment may open these. */
  private readonly foundFiles = new Set<string>();
  private readonly openProblems: string[] = [];
  private opening: Promise<void> = Promise.resolve();
  /** The log being indexed by open-moment, and how far: shown in the review status until it opens. */
  private indexing: { fileName: string; fraction: number } | undefined;
  /** The operator's choice of topics for roles, kept across logs where the next log has them. */
  private topicChoice: ReviewTopicChoice;
  private topics: TopicMap;
  private topicChoices: Record<StreamRole, string[]>;

  private constructor(
    private readonly link: SwitchableLink,
    log: ReviewLog,
    private readonly options: ReviewSessionOptions,
  ) {
    this.log = log;
    this.replay = link.attached() as ReplayLink;
    this.topicChoice = { ...options.topicChoice };
    this.topics = topicMapOf(log, this.topicChoice);
    this.topicChoices = roleChoices(log);
  }

  /** The replay link for the loop's switchable link to start on, and the topics the loop should read (the operator's choice where made). */
  static replayOf(log: ReviewLog, choice: ReviewTopicChoice = {}): { replay: ReplayLink; topics: TopicMap } {
    const topics = topicMapOf(log, choice);
    return { replay: replayLinkOf(log, topics), topics };
  }

  static attach(link: SwitchableLink, log: ReviewLog, options: ReviewSessionOptions): ReviewSession {
    if (!(link.attached() instanceof ReplayLink)) throw new Error('review mode needs the loop to be on a replay link');
    return new ReviewSession(link, log, options);
  }

  status(): ReviewStatus {
    const position = this.replay.position();
    return {
      file: this.log.path,
      fileName: basename(this.log.path),
      startMs: this.log.startMs,
      endMs: this.log.endMs,
      positionMs: position.positionMs,
      playing: position.playing,
      speed: position.speed,
      problems: [...this.log.problems, ...this.openProblems],
      rescoring: this.options.rescoring ?? false,
      topics: Object.fromEntries(STREAM_ROLES.map((role) => [role, this.topics[role]])) as Record<StreamRole, string>,
      topicChoices: this.topicChoices,
      ...(this.indexing ? { indexing: { ...this.indexing } } : {}),
    };
  }

  play(): void {
    this.replay.play();
  }

  pause(): void {
    this.replay.pause();
  }

  seek(atMs: number): void {
    this.replay.seek(atMs);
  }

  setSpeed(speed: number): void {
    this.replay.setSpeed(speed);
  }

  /**
   * Feeds the roles from the topics the operator chose (the others found as before): the log's roles
   * are read again and the replay goes on from where it stands, playing or not. A topic the log does
   * not have, or of a type that cannot feed its role, is refused in words and nothing changes.
   */
  setTopics(choice: ReviewTopicChoice): { ok: true } | { ok: false; message: string } {
    const checked = reviewTopicMap(this.log, choice);
    if (!checked.ok) return checked;
    const previous = this.replay;
    const position = previous.position();
    const replay = replayLinkOf(this.log, checked.topics);
    replay.setSpeed(position.speed);
    this.link.switchTo(replay, checked.topics);
    this.replay = replay;
    this.topics = checked.topics;
    this.topicChoice = { ...choice };
    replay.seek(position.positionMs);
    if (position.playing) replay.play();
    void previous.close();
    return { ok: true };
  }

  /** The replay in use now (a new one after open-moment switches logs). */
  currentReplay(): ReplayLink {
    return this.replay;
  }

  openMoment(file: string, atMs: number): { ok: true } | { ok: false; message: string } {
    const path = resolve(file);
    if (path === this.log.path) {
      this.replay.seek(atMs);
      return { ok: true };
    }
    const allowed = this.foundFiles.has(path) || (this.options.recordingFolders ?? []).some((folder) => dirname(path) === resolve(folder));
    if (!allowed)
      return { ok: false, message: `${basename(path)} is neither in the recordings folder nor a match a search found: open it with "reins review ${path}"` };
    if (!existsSync(path)) return { ok: false, message: `${basename(path)} is gone (deleted by the recording quota, or moved)` };
    this.opening = this.opening.then(() => this.switchTo(path, atMs));
    return { ok: true };
  }

  timeline(): Promise<ReviewTimelineResponse> {
    this.timelineCache ??= buildTimeline(this.log);
    const cached = this.timelineCache;
    cached.catch(() => {
      if (this.timelineCache === cached) this.timelineCache = undefined;
    });
    return cached;
  }

  plotTopics(): readonly { topic: string; type: string }[] {
    return this.log.channels.map((channel) => ({ topic: channel.topic, type: channel.schemaName }));
  }

  plot(path: CompiledFieldPath): Promise<FieldSeriesResult> {
    return readFieldSeries(this.log, path);
  }

  async similar(atMs: number): Promise<SimilarMomentsResponse> {
    const memory = this.options.memory;
    if (!memory) return { atMs, matches: [], note: 'No memory is open (--no-memory): there is nothing to search.' };
    const space = (await memory.tickSpaces()).find((candidate) => candidate.encoderVersion === this.options.perception.version);
    if (!space) return { atMs, matches: [], note: `The memory holds no moments encoded by these encoders (${this.options.perception.version}).` };
    const frame = await this.frameAt(atMs);
    if (frame.missing.length === STREAM_ROLES.length) return { atMs, matches: [], note: 'The log has no sensor data at that time.' };
    const embedding = await this.options.perception.encode(frame, { linearMps: 0, angularRadps: 0 });
    const store = await memory.ticks(space);
    const wanted = this.options.matches ?? DEFAULT_MATCHES;
    const sameMomentMs = this.options.sameMomentMs ?? DEFAULT_SAME_MOMENT_MS;
    const moments = await nearestMoments(store, { embedding: embedding.values }, { k: wanted * 4 });
    const matches: SimilarMoment[] = [];
    for (const moment of moments) {
      if (moment.mcapFile === undefined || moment.mcapLogTimeNs === undefined) continue;
      const file = resolve(moment.mcapFile);
      const momentMs = Number(moment.mcapLogTimeNs / 1_000_000n);
      const sameFile = file === this.log.path;
      if (sameFile && Math.abs(momentMs - atMs) < sameMomentMs) continue;
      // One match per few seconds of a log: ten neighbouring ticks of one moment are one match.
      if (matches.some((match) => match.file === file && Math.abs(match.atMs - momentMs) < sameMomentMs)) continue;
      this.foundFiles.add(file);
      matches.push({
        file,
        fileName: basename(file),
        atMs: momentMs,
        distance: moment.distance,
        episodeId: moment.episodeId,
        actedBy: moment.actedBy,
        sameFile,
      });
      if (matches.length === wanted) break;
    }
    const missing = frame.missing.length > 0 ? ` (the log has no ${frame.missing.join(', ')} then; those encoders saw nothing)` : '';
    return {
      atMs,
      matches,
      ...(matches.length === 0
        ? { note: `No other moment in memory is like this one${missing}.` }
        : missing
          ? { note: `Searched with what the log holds${missing}.` }
          : {}),
    };
  }

  async close(): Promise<void> {
    await this.opening;
    await this.log.close();
  }

  /** The observation the loop would have built at `atMs`: the newest message of each role's stream, marked missing when stale. */
  private async frameAt(atMs: number): Promise<ObservationFrame> {
    const topics = this.topics;
    const frame: ObservationFrame = { timeMs: atMs, missing: [] };
    for (const role of STREAM_ROLES) {
      const found = await this.replay.receivedAt(topics[role], atMs);
      if (!found || atMs - found.receiveTimeMs > DEFAULT_STALENESS_MS[role]) {
        frame.missing.push(role);
        continue;
      }
      setSample(frame, role, found);
    }
    return frame;
  }

  private async switchTo(path: string, atMs: number): Promise<void> {
    let log: ReviewLog;
    try {
      log = await this.options.openLog(path, { onProgress: (fraction) => (this.indexing = { fileName: basename(path), fraction }) });
    } catch (error) {
      const message = `could not open ${basename(path)}: ${(error as Error).message}`;
      this.openProblems.push(message);
      this.options.onProblem?.(message);
      return;
    } finally {
      this.indexing = undefined;
    }
    const previous = { replay: this.replay, log: this.log };
    // The operator's choice holds in the next log for the roles whose topics it has, of the right type.
    const kept = Object.fromEntries(Object.entries(this.topicChoice).filter(([role, topic]) => reviewTopicMap(log, { [role]: topic }).ok)) as ReviewTopicChoice;
    const { replay, topics } = ReviewSession.replayOf(log, kept);
    this.link.switchTo(replay, topics);
    this.replay = replay;
    this.log = log;
    this.topics = topics;
    this.topicChoices = roleChoices(log);
    this.timelineCache = undefined;
    this.openProblems.length = 0;
    replay.seek(atMs);
    await previous.replay.close();
    await previous.log.close();
  }
}

/** The replay of a log for this topic map: a camera on a CompressedImage topic gets decoded Images, as from a live robot. */
function replayLinkOf(log: ReviewLog, topics: TopicMap): ReplayLink {
  const cameraType = log.channels.find((channel) => channel.topic === topics.camera)?.schemaName;
  const compressedCamera = cameraType !== undefined && replayTopics([{ topic: topics.camera, schemaName: cameraType }])[0]?.kind === 'CompressedImage';
  return new ReplayLink(log, compressedCamera ? { imageTopics: [topics.camera] } : {});
}

type RoleMessage = { camera: Image; scan: LaserScan; joints: JointState; imu: Imu; odom: Odometry };

function setSample(frame: ObservationFrame, role: StreamRole, received: Received<RobotMessage>): void {
  const sample = { received: received as Received<RoleMessage[typeof role]>, ageMs: frame.timeMs - received.receiveTimeMs };
  (frame as Record<string, unknown>)[role] = sample;
}
