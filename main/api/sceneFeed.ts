// The 3D scene of one UI connection (one per socket, closed with it, like its live plots): every
// SCENE_PERIOD_MS a scene event in the connection's fixed frame (each TF frame placed there now, or
// not placed with the reason in words: the UI never draws a frame at the origin or at a stale place
// silently), the robot's model once per revision, the map's cells once per revision, and the planned
// paths and markers whenever they change (each on its frame; one whose frame cannot be placed in the
// fixed frame is said in words). What the
// scene is made of is shared by every connection (sceneSource.ts); a slow socket skips a round
// (nothing queues) and gets the model and the map when it has room again.
import type { SceneDrawingsEvent, SceneEvent, SceneFrame, SceneMap, ScenePose, SceneRobotEvent } from '../core/contract.ts';
import { stripLeadingSlash, type TfLookupResult } from '../core/tfTree.ts';
import { composeTransforms, IDENTITY_TRANSFORM, type RigidTransform } from '../core/util/rigidTransform.ts';
import { namedFew, type DrawingsSnapshot } from './sceneDrawings.ts';
import type { SceneMapState, SceneRobotModel, SceneSource } from './sceneSource.ts';

/** Scene events go out this often: the control tick's rate, smooth enough for a robot at walking pace. */
export const SCENE_PERIOD_MS = 100;
/** Frames named in "the tree has ..." before "and N more". */
const FRAMES_NAMED = 12;

export interface SceneFeedOptions {
  /** Sends one event; false when it was not sent (the socket is closed or backed up). */
  sendEvent(event: SceneEvent | SceneRobotEvent | SceneDrawingsEvent): boolean;
  /** Sends one binary frame; false when it was not sent. */
  sendBinary(frame: Uint8Array): boolean;
  periodMs?: number;
}

export class SceneFeed {
  private sentRobotRevision: number | undefined;
  private sentMapRevision: number | undefined;
  private sentDrawingsRevision: number | undefined;
  private readonly release: () => void;
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly source: SceneSource,
    /** As the UI asked for it: scene events echo it. */
    private fixedFrame: string,
    private readonly options: SceneFeedOptions,
  ) {
    this.release = source.acquire();
    this.timer = setInterval(() => this.send(), options.periodMs ?? SCENE_PERIOD_MS);
    this.timer.unref();
    this.send();
  }

  /** Draws in another fixed frame from now on; the next scene goes out at once. */
  setFixedFrame(fixedFrame: string): void {
    this.fixedFrame = fixedFrame;
    this.send();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    this.release();
  }

  /** What is new for this connection: the model and the map's cells where their revision is, then the scene. */
  private send(): void {
    if (this.closed) return;
    this.source.nowMs();
    const model = this.source.robotModel();
    if (model.urdf !== undefined && model.revision !== this.sentRobotRevision) {
      const event: SceneRobotEvent = { type: 'scene-robot', revision: model.revision, source: model.source, urdf: model.urdf };
      if (this.options.sendEvent(event)) this.sentRobotRevision = model.revision;
    }
    const map = this.source.map();
    if (map?.kind === 'grid' && map.frameBytes !== undefined && map.revision !== this.sentMapRevision) {
      if (this.options.sendBinary(map.frameBytes)) this.sentMapRevision = map.revision;
    }
    const drawings = this.source.drawings();
    if (drawings.revision !== this.sentDrawingsRevision) {
      const event: SceneDrawingsEvent = { type: 'scene-drawings', revision: drawings.revision, shapes: drawings.drawings.map(({ shape }) => shape) };
      if (this.options.sendEvent(event)) this.sentDrawingsRevision = drawings.revision;
    }
    this.options.sendEvent(sceneEventOf(this.source, this.fixedFrame, model, map, drawings));
  }
}

/** The scene in `fixedFrame` now: every frame placed there (or why not), the problems, the model's revision, the map, the sensors' frames. */
export function sceneEventOf(
  source: SceneSource,
  fixedFrame: string,
  model: SceneRobotModel,
  map: SceneMapState | undefined,
  drawings: DrawingsSnapshot = source.drawings(),
): SceneEvent {
  const tree = source.tree;
  const fixed = stripLeadingSlash(fixedFrame);
  const problems = source.problems();
  const fixedKnown = tree.has(fixed);
  const names = tree.frameNames();
  if (!fixedKnown && names.length > 0) {
    const more = names.length > FRAMES_NAMED ? ` and ${names.length - FRAMES_NAMED} more` : '';
    problems.push(`the fixed frame ${fixed} is not in the TF tree; it has ${names.slice(0, FRAMES_NAMED).join(', ')}${more}`);
  }
  const place = (frame: string): TfLookupResult =>
    frame === fixed
      ? { ok: true, targetFromSource: IDENTITY_TRANSFORM }
      : fixedKnown
        ? tree.lookup(fixed, frame)
        : { ok: false, failure: 'unknown-frame', problem: `the fixed frame ${fixed} is not in the TF tree` };
  const frames = tree.frames().map((info): SceneFrame => {
    const placed = place(info.frame);
    const problem = [placed.ok ? undefined : placed.problem, info.problem].filter((text) => text !== undefined).join('; ');
    return {
      frame: info.frame,
      ...(info.parent !== undefined ? { parent: info.parent } : {}),
      ...(placed.ok ? { pose: scenePose(placed.targetFromSource) } : {}),
      static: info.static,
      ...(info.ageMs !== undefined ? { ageMs: Math.round(info.ageMs) } : {}),
      ...(info.rateHz !== undefined ? { rateHz: Math.round(info.rateHz * 10) / 10 } : {}),
      ...(problem !== '' ? { problem } : {}),
    };
  });
  const sceneMap = map === undefined ? undefined : sceneMapOf(map, fixed, place);
  if (map?.kind === 'unreadable') problems.push(map.problem);
  problems.push(...drawings.waiting, ...unplacedDrawings(drawings, fixed, place));
  return {
    type: 'scene',
    fixedFrame,
    frames,
    problems,
    robot: { revision: model.revision, source: model.source, ...(model.problem !== undefined ? { problem: model.problem } : {}) },
    ...(sceneMap !== undefined ? { map: sceneMap } : {}),
    sensorFrames: source.sensorFrames(),
  };
}

/** The map's metadata, placed in the fixed frame; a map whose frame cannot be placed has a problem (the UI then hides it). */
function sceneMapOf(map: SceneMapState, fixed: string, place: (frame: string) => TfLookupResult): SceneMap | undefined {
  if (map.kind !== 'grid') return undefined;
  let problem = map.problem;
  let pose: ScenePose | undefined;
  if (map.frame === '') {
    problem ??= `the map on ${map.topic} names no frame (header.frame_id is empty)`;
  } else {
    const placed = place(map.frame);
    if (placed.ok) pose = scenePose(composeTransforms(placed.targetFromSource, map.frameFromOrigin));
    else problem ??= `the map's frame ${map.frame} cannot be placed in ${fixed}: ${placed.problem}`;
  }
  return {
    topic: map.topic,
    revision: map.revision,
    frame: map.frame,
    origin: scenePose(map.frameFromOrigin),
    width: map.width,
    height: map.height,
    resolutionM: map.resolutionM,
    ...(pose !== undefined ? { pose } : {}),
    ...(problem !== undefined ? { problem } : {}),
  };
}

/** The paths and markers that hang on a frame that cannot be placed in the fixed frame now, one line a frame. */
function unplacedDrawings(drawings: DrawingsSnapshot, fixed: string, place: (frame: string) => TfLookupResult): string[] {
  const byFrame = new Map<string, string[]>();
  for (const { label, shape } of drawings.drawings) {
    const labels = byFrame.get(shape.frame);
    if (labels === undefined) byFrame.set(shape.frame, [label]);
    else labels.push(label);
  }
  const lines: string[] = [];
  for (const [frame, labels] of byFrame) {
    const placed = place(frame);
    if (placed.ok) continue;
    lines.push(`${namedFew(labels)} not drawn: ${frame} cannot be placed in ${fixed}: ${placed.problem}`);
  }
  return lines;
}

function scenePose(transform: RigidTransform): ScenePose {
  const { translation: t, rotation: q } = transform;
  return { t: [t.x, t.y, t.z], q: [q.x, q.y, q.z, q.w] };
}
