// The robot's planned paths and markers as the scene keeps them: one path per nav_msgs/Path topic,
// markers by their identity (topic, namespace, id) as rviz keeps them (ADD and MODIFY replace,
// DELETE removes one, DELETEALL every marker of the topic, a lifetime ends one on the scene's clock).
// Each hangs on a TF frame: a path and a frame-locked marker on their own frame, so they move with
// it; any other marker is pinned where its frame was when it came, on the root of that frame's tree
// (rviz's rule: it stays in the world while the robot moves on). A marker whose frame the tree
// cannot place yet waits, said in words, and is never drawn at the origin. Bounded: at most
// MAX_SCENE_MARKERS shapes and MAX_SCENE_POINTS points together; what would pass is refused, named.
import { MAX_SCENE_MARKERS, MAX_SCENE_POINTS, type SceneShape } from '../core/contract.ts';
import { stripLeadingSlash, type TfTree } from '../core/tfTree.ts';
import { composeTransforms, type RigidTransform } from '../core/util/rigidTransform.ts';
import { PATH_COLOUR, readMarkers, readPath, type MarkerCommand } from './markerMessages.ts';

export interface SceneDrawingsOptions {
  tree: TfTree;
  /** The scene's clock (ms): lifetimes run on it. */
  clock: () => number;
  /** A problem in words under a key (a later one under the same key replaces it); `undefined` clears it. */
  problem: (key: string, problem: string | undefined) => void;
  maxShapes?: number;
  maxPoints?: number;
}

/** One shape as the feed sends it, with its name for the operator (`Path /plan`, `Marker goal/0 on /markers`). */
export interface PlacedDrawing {
  label: string;
  shape: SceneShape;
}

export interface DrawingsSnapshot {
  /** Bumped whenever a shape comes, changes or goes. */
  revision: number;
  drawings: PlacedDrawing[];
  /** Markers waiting for their frame to be placed, in words. */
  waiting: string[];
}

type ShapeBody = Omit<SceneShape, 'key' | 'version' | 'frame'>;

interface Entry {
  key: string;
  topic: string;
  label: string;
  /** As given, without a leading slash. */
  frame: string;
  /** Paths and frame-locked markers move with their frame; others are pinned where it was. */
  followsFrame: boolean;
  body: ShapeBody;
  expiresAtMs: number | undefined;
  points: number;
  /** What was sent to the UI: undefined while a pinned marker waits for its frame. */
  placed: SceneShape | undefined;
  waitingProblem: string | undefined;
  /** The message content, to tell a marker sent again unchanged from a changed one. */
  signature: string;
}

export class SceneDrawings {
  private readonly entries = new Map<string, Entry>();
  private readonly maxShapes: number;
  private readonly maxPoints: number;
  private points = 0;
  private revision = 0;
  private versions = 0;
  private snapshotCache: DrawingsSnapshot | undefined;

  constructor(private readonly options: SceneDrawingsOptions) {
    this.maxShapes = options.maxShapes ?? MAX_SCENE_MARKERS;
    this.maxPoints = options.maxPoints ?? MAX_SCENE_POINTS;
  }

  /** A nav_msgs/Path: the topic's path from now on (an empty one clears it). */
  onPath(topic: string, fields: unknown): void {
    const read = readPath(fields, topic);
    const key = topic;
    if (!read.ok) {
      this.options.problem(`path:${topic}`, read.problem);
      return;
    }
    this.options.problem(`path:${topic}`, undefined);
    if (read.poses === 0) {
      this.remove(key);
      return;
    }
    const body: ShapeBody = { kind: 'path', pose: { t: [0, 0, 0], q: [0, 0, 0, 1] }, scale: [0.03, 0, 0], colour: PATH_COLOUR, pointsM: read.pointsM };
    this.put({ key, topic, label: `Path ${topic}`, frame: read.frame, followsFrame: true, body, lifetimeMs: 0 });
  }

  /** A visualization_msgs/MarkerArray, or with `single` one Marker: applied in order. */
  onMarkers(topic: string, fields: unknown, single = false): void {
    const read = readMarkers(fields, topic, single);
    for (const { key, problem } of read.problems) this.options.problem(`marker:${key}`, problem);
    const before = new Map(this.entries);
    const revisionBefore = this.revision;
    for (const command of read.commands) this.apply(topic, command);
    if (this.revision !== revisionBefore) this.keepUnchanged(before, revisionBefore);
  }

  /** A topic no longer followed: its shapes go. */
  forgetTopic(topic: string): void {
    for (const entry of [...this.entries.values()]) if (entry.topic === topic) this.remove(entry.key);
  }

  /** Everything goes (another robot, or the clock stepped back in a replay: the log gives its newest messages again). */
  clear(): void {
    if (this.entries.size === 0) return;
    this.entries.clear();
    this.points = 0;
    this.changed();
  }

  /** The shapes now: lifetimes that have run out end, markers waiting for their frame are tried again. */
  snapshot(): DrawingsSnapshot {
    const nowMs = this.options.clock();
    // Markers that wait for the same frame say so in one line (a MarkerArray of a hundred would otherwise be a hundred).
    const waitingFor = new Map<string, string[]>();
    for (const entry of [...this.entries.values()]) {
      if (entry.expiresAtMs !== undefined && nowMs >= entry.expiresAtMs) {
        this.remove(entry.key);
        continue;
      }
      if (entry.placed === undefined) {
        if (this.pin(entry)) this.changed();
        else {
          const labels = waitingFor.get(entry.waitingProblem ?? '');
          if (labels === undefined) waitingFor.set(entry.waitingProblem ?? '', [entry.label]);
          else labels.push(entry.label);
        }
      }
    }
    const waiting = [...waitingFor].map(([problem, labels]) => `${namedFew(labels)} not drawn: ${problem}`);
    if (this.snapshotCache?.revision !== this.revision || waiting.length > 0 || this.snapshotCache.waiting.length > 0) {
      const drawings: PlacedDrawing[] = [];
      for (const entry of this.entries.values()) if (entry.placed !== undefined) drawings.push({ label: entry.label, shape: entry.placed });
      this.snapshotCache = { revision: this.revision, drawings, waiting };
    }
    return this.snapshotCache;
  }

  private apply(topic: string, command: MarkerCommand): void {
    switch (command.action) {
      case 'delete-all':
        return this.forgetTopic(topic);
      case 'delete':
        this.options.problem(`marker:${command.key}`, undefined);
        return this.remove(command.key);
      case 'add':
        this.put({
          key: command.key,
          topic,
          label: command.name.replace(/^marker/, 'Marker'),
          frame: command.frame,
          followsFrame: command.frameLocked,
          body: command.shape,
          lifetimeMs: command.lifetimeMs,
        });
    }
  }

  private put(given: { key: string; topic: string; label: string; frame: string; followsFrame: boolean; body: ShapeBody; lifetimeMs: number }): void {
    const { key, body } = given;
    const problemKey = body.kind === 'path' ? `path:${given.topic}` : `marker:${key}`;
    const points = (body.pointsM?.length ?? 0) / 3;
    const old = this.entries.get(key);
    if (old === undefined && this.entries.size >= this.maxShapes) {
      this.options.problem(problemKey, `the scene holds ${this.maxShapes} paths and markers, its limit: the ${lowerFirst(given.label)} is not drawn`);
      return;
    }
    if (this.points - (old?.points ?? 0) + points > this.maxPoints) {
      this.options.problem(
        problemKey,
        `the scene's paths and markers hold ${this.maxPoints} points, its limit: the ${lowerFirst(given.label)} (${points} points) is not drawn`,
      );
      return;
    }
    if (body.kind !== 'path') this.options.problem(problemKey, undefined);
    const frame = stripLeadingSlash(given.frame);
    const expiresAtMs = given.lifetimeMs > 0 ? this.options.clock() + given.lifetimeMs : undefined;
    const signature = JSON.stringify([frame, given.followsFrame, body]);
    // Sent again unchanged (a publisher that repeats its markers): only its lifetime starts again.
    if (old !== undefined && old.signature === signature && old.placed !== undefined) {
      old.expiresAtMs = expiresAtMs;
      return;
    }
    const entry: Entry = {
      key,
      topic: given.topic,
      label: given.label,
      frame,
      followsFrame: given.followsFrame,
      body,
      expiresAtMs,
      points,
      placed: undefined,
      waitingProblem: undefined,
      signature,
    };
    this.points += points - (old?.points ?? 0);
    this.entries.set(key, entry);
    this.pin(entry);
    this.changed();
  }

  /** Places a shape on its frame, or pins a marker on its tree's root where its frame is now; false while its frame cannot be placed. */
  private pin(entry: Entry): boolean {
    const { tree } = this.options;
    const pose = entry.body.pose;
    if (entry.followsFrame) {
      entry.placed = { key: entry.key, version: ++this.versions, frame: entry.frame, ...entry.body };
      return true;
    }
    const root = tree.rootOf(entry.frame);
    const found = root === undefined ? tree.lookup(entry.frame, entry.frame) : tree.lookup(root, entry.frame);
    if (root === undefined || !found.ok) {
      entry.waitingProblem = found.ok ? `no frame ${entry.frame} in the TF tree` : found.problem;
      return false;
    }
    const frameFromShape: RigidTransform = {
      translation: { x: pose.t[0], y: pose.t[1], z: pose.t[2] },
      rotation: { x: pose.q[0], y: pose.q[1], z: pose.q[2], w: pose.q[3] },
    };
    const { translation: t, rotation: q } = composeTransforms(found.targetFromSource, frameFromShape);
    entry.placed = { key: entry.key, version: ++this.versions, frame: root, ...entry.body, pose: { t: [t.x, t.y, t.z], q: [q.x, q.y, q.z, q.w] } };
    entry.waitingProblem = undefined;
    return true;
  }

  /**
   * A publisher that sends DELETEALL and then the same markers again (each second, say) changes
   * nothing: shapes that came back as they were keep their version, and if all did, the revision too.
   */
  private keepUnchanged(before: ReadonlyMap<string, Entry>, revisionBefore: number): void {
    let same = before.size === this.entries.size;
    for (const [key, entry] of this.entries) {
      const old = before.get(key);
      const placedAlike =
        old?.placed !== undefined &&
        entry.placed !== undefined &&
        JSON.stringify([old.placed.frame, old.placed.pose]) === JSON.stringify([entry.placed.frame, entry.placed.pose]);
      if (old !== undefined && old !== entry && old.signature === entry.signature && placedAlike) entry.placed = old.placed;
      if (old === undefined || entry.placed !== old.placed) same = false;
    }
    if (same) this.revision = revisionBefore;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    this.entries.delete(key);
    this.points -= entry.points;
    this.changed();
  }

  private changed(): void {
    this.revision++;
  }
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** At most this many paths or markers named in one line of the scene's problems; the rest are counted. */
export const DRAWINGS_NAMED = 3;

/** `Marker a/0, Marker a/1, Marker a/2 and 9 more`. */
export function namedFew(labels: readonly string[]): string {
  const more = labels.length > DRAWINGS_NAMED ? ` and ${labels.length - DRAWINGS_NAMED} more` : '';
  return `${labels.slice(0, DRAWINGS_NAMED).join(', ')}${more}`;
}
