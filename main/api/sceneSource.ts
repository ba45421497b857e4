// What the 3D scene is made of, shared by every UI connection that shows one: the robot's TF tree
// (from every TFMessage topic it offers; a `tf_static` topic's transforms are static), its model (the
// `--urdf` file, which wins; else its robot_description topic; else, when that brings nothing,
// robot_state_publisher's parameter), its map (the first OccupancyGrid
// topic, /map preferred), its planned paths and markers (every nav_msgs/Path, visualization_msgs/
// MarkerArray and Marker topic, up to MAX_DRAWING_TOPICS; sceneDrawings.ts) and the frames its scan
// and point cloud are stamped in. Topics are
// subscribed only while some connection shows a scene (acquire/release) and chosen again as the
// robot's topics change. A malformed message is a problem in words, never a throw into the link.
//
// Time: each TFMessage is placed on the scene's clock as it arrives (its newest stamp is "now", the
// others keep their distance to it), so a robot whose clock is off, or a log replayed at any speed,
// goes stale only when its transforms stop coming. In review the scene's clock is the log's
// position: paused, nothing goes stale; sought back, the dynamic transforms are dropped.
import { encodeOccupancyGridFrame, MAX_MAP_CELLS_A_SIDE } from '../core/contract.ts';
import type { Link, TopicInfo, Unsubscribe } from '../core/link.ts';
import type { Received } from '../core/messages.ts';
import { stripLeadingSlash, TF_HISTORY_MS, TfTree } from '../core/tfTree.ts';
import { IDENTITY_TRANSFORM, unitQuaternion, type RigidTransform } from '../core/util/rigidTransform.ts';
import { canonicalTypeName } from '../links/rosbridge/decode/messageTypes.ts';
import { isMarkerArrayType, isMarkerType, isPathType } from './markerMessages.ts';
import { isOccupancyGridType, readOccupancyGrid, thinOccupancyGrid } from './occupancyGrid.ts';
import { RobotDescriptionParameter, TOPIC_GRACE_MS } from './robotDescriptionParameter.ts';
import { MAX_URDF_BYTES, urdfProblem, type RobotModelFile } from './robotModelFile.ts';
import { SceneDrawings, type DrawingsSnapshot } from './sceneDrawings.ts';
import { isTfType, readTfMessage } from './tfMessages.ts';

export const PREFERRED_MAP_TOPIC = '/map';
export const ROBOT_DESCRIPTION_TOPIC = '/robot_description';
/** How often the robot's topics are looked at again (discovery ends, robots are switched at runtime). */
const RECHOOSE_PERIOD_MS = 1000;
/** The scene's clock stepping back further than this (a replay sought back) drops the dynamic transforms. */
const CLOCK_STEP_BACK_MS = 100;
/** Problems with messages kept at once; each is forgotten TF_HISTORY_MS after it last happened. */
const MAX_MESSAGE_PROBLEMS = 16;
/** Path and marker topics followed at once (a navigation stack offers a handful); the rest are named in a problem. */
export const MAX_DRAWING_TOPICS = 16;

export interface SceneSourceOptions {
  /** The scene's time: the cockpit's clock live; in review the log's position, standing still while paused. */
  clock: () => number;
  /** `reins start --urdf FILE`: used instead of the robot's robot_description topic. */
  robotModelFile?: RobotModelFile;
  /** The frame ids of the latest scan and point cloud. */
  sensorFrames: () => { scan?: string | undefined; points?: string | undefined };
  rechoosePeriodMs?: number;
}

/** The robot's model now; revision 0 while there is none (`problem` says why). */
export interface SceneRobotModel {
  revision: number;
  /** Where it came from, in words the UI quotes: the topic, or `file PATH`. */
  source: string;
  urdf: string | undefined;
  problem: string | undefined;
}

/** The map as the UI draws it: its cells thinned and encoded once per revision for every connection. */
export type SceneMapState =
  | {
      kind: 'grid';
      topic: string;
      revision: number;
      frame: string;
      frameFromOrigin: RigidTransform;
      /** As sent: thinned to at most MAX_MAP_CELLS_A_SIDE a side. */
      width: number;
      height: number;
      resolutionM: number;
      /** The occupancy-grid binary frame; undefined when the cells cannot be drawn (see problem). */
      frameBytes: Uint8Array | undefined;
      problem: string | undefined;
    }
  | { kind: 'unreadable'; topic: string; revision: number; problem: string };

type Role = 'tf' | 'tf-static' | 'robot-description' | 'map' | 'path' | 'markers' | 'marker';

/** The robot's description topic: /robot_description, else one in a namespace (`/robot1/robot_description`). */
export function chooseRobotDescriptionTopic(topics: readonly TopicInfo[]): string | undefined {
  const strings = topics.filter((topic) => topic.type === undefined || canonicalTypeName(topic.type) === 'std_msgs/String').map((topic) => topic.topic);
  return strings.find((topic) => topic === ROBOT_DESCRIPTION_TOPIC) ?? strings.find((topic) => topic.endsWith(ROBOT_DESCRIPTION_TOPIC));
}

/** The map topic: /map, else one ending in /map, else the first OccupancyGrid (a costmap). */
export function chooseMapTopic(topics: readonly TopicInfo[]): string | undefined {
  const grids = topics.filter((topic) => isOccupancyGridType(topic.type)).map((topic) => topic.topic);
  return grids.find((topic) => topic === PREFERRED_MAP_TOPIC) ?? grids.find((topic) => topic.endsWith(PREFERRED_MAP_TOPIC)) ?? grids[0];
}

export class SceneSource {
  /** The robot's TF tree on the scene's clock. */
  readonly tree: TfTree;
  private users = 0;
  private readonly subscriptions = new Map<string, { role: Role; unsubscribe: Unsubscribe }>();
  private readonly stops: Array<() => void> = [];
  private robotName: string | undefined;
  private lastNowMs: number | undefined;
  private readonly messageProblems = new Map<string, { problem: string; atMs: number }>();
  private topicModel: { topic: string; urdf: string; revision: number } | undefined;
  private topicModelProblem: string | undefined;
  private modelRevisions = 0;
  /** robot_state_publisher's parameter, asked when the topic brings nothing (robotDescriptionParameter.ts). */
  private readonly parameter = new RobotDescriptionParameter();
  private parameterRevision = 0;
  /** When the description topic was subscribed (wall clock), or the scene started without one. */
  private descriptionWaitSinceMs: number | undefined;
  private mapRevisions = 0;
  /** The newest map as it came, until it is first drawn; then only what was made of it. */
  private latestMap: { topic: string; revision: number; fields: unknown } | undefined;
  private builtMap: SceneMapState | undefined;
  private readonly drawingsStore: SceneDrawings;
  /** Path and marker topics left unfollowed (over MAX_DRAWING_TOPICS). */
  private drawingTopicsLeft: string[] = [];

  constructor(
    private readonly link: Link,
    private readonly options: SceneSourceOptions,
  ) {
    this.tree = new TfTree({ nowMs: options.clock });
    this.drawingsStore = new SceneDrawings({
      tree: this.tree,
      clock: options.clock,
      problem: (key, problem) => (problem === undefined ? this.messageProblems.delete(key) : this.noteProblem(key, problem)),
    });
  }

  /** A connection starts showing the scene; the returned function stops it (the last one unsubscribes). */
  acquire(): () => void {
    this.users++;
    if (this.users === 1) this.start();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.users--;
      if (this.users === 0) this.stop();
    };
  }

  /** The topics subscribed now and what for. */
  subscribedTopics(): string[] {
    return [...this.subscriptions.keys()];
  }

  /** The scene's time now; a step back (a replay sought back) drops the dynamic transforms first. */
  nowMs(): number {
    const nowMs = this.options.clock();
    if (this.lastNowMs !== undefined && nowMs < this.lastNowMs - CLOCK_STEP_BACK_MS) {
      this.tree.clearDynamic();
      this.drawingsStore.clear();
    }
    this.lastNowMs = nowMs;
    return nowMs;
  }

  robotModel(): SceneRobotModel {
    const file = this.options.robotModelFile;
    if (file !== undefined) return { revision: 1, source: `file ${file.path}`, urdf: file.urdf, problem: undefined };
    const model = this.topicModel;
    if (model !== undefined) return { revision: model.revision, source: model.topic, urdf: model.urdf, problem: this.topicModelProblem };
    const fromParameter = this.parameter.result;
    if (fromParameter?.ok === true) return { revision: this.parameterRevision, source: fromParameter.source, urdf: fromParameter.urdf, problem: undefined };
    const parameterProblem = fromParameter === undefined ? '' : `; ${fromParameter.problem}`;
    const topic = this.topicOf('robot-description');
    if (topic !== undefined)
      return { revision: 0, source: topic, urdf: undefined, problem: (this.topicModelProblem ?? `nothing has arrived on ${topic} yet`) + parameterProblem };
    return {
      revision: 0,
      source: 'none',
      urdf: undefined,
      problem: `the robot offers no robot_description topic (std_msgs/String)${parameterProblem}: give its URDF with reins start --urdf FILE`,
    };
  }

  /** The newest map, read and thinned on first use (a burst of maps costs one); undefined before one arrives. */
  map(): SceneMapState | undefined {
    const latest = this.latestMap;
    if (latest === undefined) return undefined;
    if (this.builtMap?.revision !== latest.revision) {
      this.builtMap = buildMap(latest.topic, latest.revision, latest.fields);
      // Only what was made of it is kept: the robot's grid may be many times the thinned one.
      latest.fields = undefined;
    }
    return this.builtMap;
  }

  /** The planned paths and markers now, each on the frame it hangs on (or waiting for it, in words). */
  drawings(): DrawingsSnapshot {
    return this.drawingsStore.snapshot();
  }

  /** The scan's and the point cloud's frames, as the tree names them. */
  sensorFrames(): { scan?: string; points?: string } {
    const frames = this.options.sensorFrames();
    const named = (frame: string | undefined) => (frame === undefined || frame === '' ? undefined : stripLeadingSlash(frame));
    const scan = named(frames.scan);
    const points = named(frames.points);
    return { ...(scan !== undefined ? { scan } : {}), ...(points !== undefined ? { points } : {}) };
  }

  /** What is wrong with the tree and the messages that feed it, in words. */
  problems(): string[] {
    const nowMs = this.options.clock();
    for (const [key, kept] of this.messageProblems) if (nowMs - kept.atMs >= TF_HISTORY_MS) this.messageProblems.delete(key);
    const problems = [...this.tree.problems(), ...[...this.messageProblems.values()].map((kept) => kept.problem)];
    if (this.drawingTopicsLeft.length > 0)
      problems.push(`${MAX_DRAWING_TOPICS} path and marker topics are drawn, the most at once: ${this.drawingTopicsLeft.join(', ')} left out`);
    if (this.tree.frameNames().length === 0) {
      const tfTopics = [...this.subscriptions].filter(([, { role }]) => role === 'tf' || role === 'tf-static').map(([topic]) => topic);
      problems.push(
        tfTopics.length === 0
          ? 'the robot offers no TF topic (tf2_msgs/TFMessage): its frames cannot be placed'
          : `no transform has arrived on ${tfTopics.join(', ')} yet`,
      );
    }
    return problems;
  }

  private start(): void {
    this.choose();
    this.stops.push(this.link.on('presence', () => this.choose()));
    const timer = setInterval(() => this.choose(), this.options.rechoosePeriodMs ?? RECHOOSE_PERIOD_MS);
    timer.unref();
    this.stops.push(() => clearInterval(timer));
  }

  /** Nobody shows the scene: no topic stays subscribed. The static transforms, the model and the map are kept (a log plays them once). */
  private stop(): void {
    for (const stop of this.stops.splice(0)) stop();
    for (const { unsubscribe } of this.subscriptions.values()) unsubscribe();
    this.subscriptions.clear();
    this.tree.clearDynamic();
    this.messageProblems.clear();
  }

  private choose(): void {
    if (this.robotName !== undefined && this.link.robotName !== this.robotName) this.forgetRobot();
    this.robotName = this.link.robotName;
    const topics = this.link.topics();
    const wanted = new Map<string, Role>();
    for (const topic of topics) if (isTfType(topic.type)) wanted.set(topic.topic, topic.topic.endsWith('tf_static') ? 'tf-static' : 'tf');
    const description = this.options.robotModelFile === undefined ? chooseRobotDescriptionTopic(topics) : undefined;
    if (description !== undefined && !wanted.has(description)) wanted.set(description, 'robot-description');
    const map = chooseMapTopic(topics);
    if (map !== undefined && !wanted.has(map)) wanted.set(map, 'map');
    this.drawingTopicsLeft = [];
    let drawingTopics = 0;
    for (const topic of topics) {
      const role: Role | undefined = isPathType(topic.type)
        ? 'path'
        : isMarkerArrayType(topic.type)
          ? 'markers'
          : isMarkerType(topic.type)
            ? 'marker'
            : undefined;
      if (role === undefined || wanted.has(topic.topic)) continue;
      if (drawingTopics++ >= MAX_DRAWING_TOPICS) this.drawingTopicsLeft.push(topic.topic);
      else wanted.set(topic.topic, role);
    }
    if (this.latestMap !== undefined && this.latestMap.topic !== map) {
      this.latestMap = undefined;
      this.builtMap = undefined;
    }
    for (const [topic, subscription] of this.subscriptions) {
      if (wanted.get(topic) === subscription.role) continue;
      subscription.unsubscribe();
      this.subscriptions.delete(topic);
      this.drawingsStore.forgetTopic(topic);
    }
    for (const [topic, role] of wanted) {
      if (this.subscriptions.has(topic)) continue;
      if (role === 'robot-description') this.descriptionWaitSinceMs = Date.now();
      this.subscriptions.set(topic, { role, unsubscribe: this.link.subscribe(topic, (received) => this.onMessage(role, received)) });
    }
    this.askParameterWhenQuiet();
  }

  /** No model from the topic a while after subscribing it (or no topic at all): robot_state_publisher's parameter. */
  private askParameterWhenQuiet(): void {
    if (this.options.robotModelFile !== undefined || this.topicModel !== undefined || this.link.presence() !== 'present') return;
    const nowMs = Date.now();
    this.descriptionWaitSinceMs ??= nowMs;
    // Without a topic too: the robot's topics may still be being discovered.
    if (nowMs - this.descriptionWaitSinceMs < TOPIC_GRACE_MS) return;
    this.parameter.poll(this.link, nowMs, () => {
      if (this.parameter.result?.ok === true) this.parameterRevision = ++this.modelRevisions;
    });
  }

  /** Another robot: nothing of the last one's scene is its. */
  private forgetRobot(): void {
    this.tree.clear();
    this.topicModel = undefined;
    this.topicModelProblem = undefined;
    this.parameter.reset();
    this.descriptionWaitSinceMs = undefined;
    this.latestMap = undefined;
    this.builtMap = undefined;
    this.drawingsStore.clear();
    this.messageProblems.clear();
  }

  private onMessage(role: Role, received: Received): void {
    if (this.subscriptions.get(received.topic)?.role !== role) return;
    const { msg, topic } = received;
    if (msg.kind !== 'RosFields') {
      this.noteProblem(`kind:${topic}`, `${topic} carries ${msg.kind} messages, which the scene cannot read`);
      return;
    }
    switch (role) {
      case 'tf':
      case 'tf-static':
        return this.onTf(topic, msg.fields, role === 'tf-static');
      case 'robot-description':
        return this.onRobotDescription(topic, msg.fields);
      case 'map':
        this.latestMap = { topic, revision: ++this.mapRevisions, fields: msg.fields };
        return;
      case 'path':
        return this.drawingsStore.onPath(topic, msg.fields);
      case 'markers':
      case 'marker':
        return this.drawingsStore.onMarkers(topic, msg.fields, role === 'marker');
    }
  }

  private onTf(topic: string, fields: unknown, isStatic: boolean): void {
    const nowMs = this.nowMs();
    const message = readTfMessage(fields, topic);
    for (const problem of message.problems) this.noteProblem(`tf:${topic}`, problem);
    let newestMs: number | undefined;
    for (const transform of message.transforms) if (transform.stampMs !== undefined) newestMs = Math.max(newestMs ?? -Infinity, transform.stampMs);
    for (const transform of message.transforms) {
      const { stampMs } = transform;
      const onClockMs = isStatic || stampMs === undefined || newestMs === undefined ? nowMs : nowMs - (newestMs - stampMs);
      this.tree.add({ parent: transform.parent, child: transform.child, stampMs: onClockMs, transform: transform.transform }, isStatic);
    }
  }

  private onRobotDescription(topic: string, fields: Record<string, unknown>): void {
    const urdf = fields['data'];
    if (typeof urdf !== 'string') {
      this.topicModelProblem = `a message on ${topic} has no data text (std_msgs/String): the robot model is not updated`;
      return;
    }
    if (urdf.length > MAX_URDF_BYTES) {
      this.topicModelProblem = `the robot model on ${topic} is over ${MAX_URDF_BYTES / 1024 / 1024} MiB: it is not used`;
      return;
    }
    const problem = urdfProblem(urdf);
    if (problem !== undefined) {
      this.topicModelProblem = `the robot model on ${topic} ${problem}`;
      return;
    }
    this.topicModelProblem = undefined;
    // The same text again (a latched topic re-sent on reconnect) is the same revision.
    if (this.topicModel?.topic === topic && this.topicModel.urdf === urdf) return;
    this.topicModel = { topic, urdf, revision: ++this.modelRevisions };
  }

  private topicOf(role: Role): string | undefined {
    for (const [topic, subscription] of this.subscriptions) if (subscription.role === role) return topic;
    return undefined;
  }

  private noteProblem(key: string, problem: string): void {
    this.messageProblems.delete(key);
    this.messageProblems.set(key, { problem, atMs: this.options.clock() });
    if (this.messageProblems.size > MAX_MESSAGE_PROBLEMS) this.messageProblems.delete(this.messageProblems.keys().next().value!);
  }
}

function buildMap(topic: string, revision: number, fields: unknown): SceneMapState {
  const read = readOccupancyGrid(fields, topic);
  if (!read.ok) return { kind: 'unreadable', topic, revision, problem: read.problem };
  const { grid } = read;
  const { x, y, z, w } = grid.frameFromOrigin.rotation;
  // A map saved with an all-zero orientation means "not rotated" (map_server's habit with old YAMLs).
  const rotation = x === 0 && y === 0 && z === 0 && w === 0 ? IDENTITY_TRANSFORM.rotation : unitQuaternion(grid.frameFromOrigin.rotation);
  if (rotation === undefined)
    return { kind: 'unreadable', topic, revision, problem: `the map on ${topic} has an origin orientation that is not a unit quaternion` };
  const frame = stripLeadingSlash(grid.frame);
  const frameFromOrigin = { translation: grid.frameFromOrigin.translation, rotation };
  const base = { kind: 'grid' as const, topic, revision, frame, frameFromOrigin };
  if (read.problem !== undefined)
    return { ...base, width: grid.width, height: grid.height, resolutionM: grid.resolutionM, frameBytes: undefined, problem: read.problem };
  const thinned = thinOccupancyGrid(grid.cells, grid.width, grid.height, MAX_MAP_CELLS_A_SIDE);
  return {
    ...base,
    width: thinned.width,
    height: thinned.height,
    resolutionM: grid.resolutionM * thinned.factor,
    frameBytes: encodeOccupancyGridFrame(revision, thinned.width, thinned.height, thinned.cells),
    problem: undefined,
  };
}
