// The robot's TF tree as tf2 keeps it: per child frame its parent and the stamped transforms of the
// last TF_HISTORY_MS (a static transform kept for good), composed through the tree on request, at
// the newest transforms or interpolated at a time. Pure: it reads the time from the clock it is given
// and never a topic; stamps are on that clock (the scene maps the robot's stamps onto it). Bad input
// never throws and never enters the tree: a NaN, a rotation that is not a unit quaternion, a
// transform that would close a cycle is refused with a problem in words naming the frames, kept a
// while among the tree's problems.
import { MAX_FRAME_ID_CHARS } from './contract.ts';
import { composeTransforms, IDENTITY_TRANSFORM, interpolateTransforms, invertTransform, unitQuaternion, type RigidTransform } from './util/rigidTransform.ts';

/** How far back a dynamic frame's transforms are kept (tf2's default cache time). */
export const TF_HISTORY_MS = 10_000;
/** The most transforms one dynamic frame keeps (a 50 Hz publisher's 10 s); a faster one keeps its last few seconds. */
export const MAX_TRANSFORMS_PER_FRAME = 500;
/** The most frames the tree holds; transforms of new frames beyond it are refused. */
export const MAX_TF_FRAMES = 1000;
/** A dynamic transform is stale once it is older than its publisher's period plus this. */
export const STALE_MARGIN_MS = 500;
/** A frame's rate is measured over its transforms of the last this many ms. */
export const TF_RATE_WINDOW_MS = 5000;
/** The period of a frame is measured over its last this many transforms. */
const PERIOD_SAMPLES = 20;
/** Problems kept at once (the newest); each is forgotten TF_HISTORY_MS after it last happened. */
const MAX_PROBLEMS = 32;
/** Frames named in a problem before "and N more". */
const FRAMES_NAMED = 12;

/** One transform as a publisher sent it: `transform` is parentFromChild, stamped on the tree's clock. */
export interface StampedTransform {
  parent: string;
  child: string;
  stampMs: number;
  transform: RigidTransform;
}

export type TfAddResult = { ok: true } | { ok: false; problem: string };

export type TfLookupFailure = 'unknown-frame' | 'not-connected' | 'stale' | 'extrapolation';

export type TfLookupResult = { ok: true; targetFromSource: RigidTransform } | { ok: false; failure: TfLookupFailure; problem: string };

/** One frame as the tree knows it now. */
export interface TfFrameInfo {
  frame: string;
  /** Undefined for a root. */
  parent: string | undefined;
  static: boolean;
  /** Since its newest transform (dynamic frames). */
  ageMs: number | undefined;
  /** Transforms a second over the last TF_RATE_WINDOW_MS (dynamic frames); undefined with a single one. */
  rateHz: number | undefined;
  /** Doubt about its edge (two parents, static and dynamic), while it lasts. */
  problem: string | undefined;
}

export interface TfTreeOptions {
  /** The time now, on the clock the stamps are on. */
  nowMs: () => number;
  historyMs?: number;
  maxFrames?: number;
  maxTransformsPerFrame?: number;
  staleMarginMs?: number;
}

interface Stamped {
  stampMs: number;
  transform: RigidTransform;
}

interface FrameRecord {
  parent: string;
  static: boolean;
  /** Oldest first; a static frame has one. */
  history: Stamped[];
  doubt: { problem: string; atMs: number } | undefined;
}

type EdgeResult = { ok: true; parentFromChild: RigidTransform } | { ok: false; failure: 'stale' | 'extrapolation'; problem: string };

/** tf2's own rule: one leading slash is dropped (`/odom` is `odom`). */
export function stripLeadingSlash(frame: string): string {
  return frame.startsWith('/') ? frame.slice(1) : frame;
}

export class TfTree {
  private readonly records = new Map<string, FrameRecord>();
  /** parent → its children, so that a frame that is only ever a parent (a root) is known too. */
  private readonly children = new Map<string, Set<string>>();
  private readonly recentProblems = new Map<string, { problem: string; atMs: number }>();
  private readonly historyMs: number;
  private readonly maxFrames: number;
  private readonly maxTransformsPerFrame: number;
  private readonly staleMarginMs: number;

  constructor(private readonly options: TfTreeOptions) {
    this.historyMs = options.historyMs ?? TF_HISTORY_MS;
    this.maxFrames = options.maxFrames ?? MAX_TF_FRAMES;
    this.maxTransformsPerFrame = options.maxTransformsPerFrame ?? MAX_TRANSFORMS_PER_FRAME;
    this.staleMarginMs = options.staleMarginMs ?? STALE_MARGIN_MS;
  }

  /**
   * Takes one transform, static (kept for good, never stale) or dynamic. A frame given another parent
   * takes the newest, as tf2 does, and says so for a while (two publishers disagree).
   */
  add(input: StampedTransform, isStatic: boolean): TfAddResult {
    const parent = stripLeadingSlash(input.parent);
    const child = stripLeadingSlash(input.child);
    const edge = `${parent || '""'} → ${child || '""'}`;
    if (parent === '' || child === '') return this.refuse(`empty:${edge}`, `a transform with an empty frame id (${edge}) was refused`);
    if (parent.length > MAX_FRAME_ID_CHARS || child.length > MAX_FRAME_ID_CHARS)
      return this.refuse(`long:${edge.slice(0, 80)}`, `a transform with a frame id over ${MAX_FRAME_ID_CHARS} characters was refused`);
    if (parent === child) return this.refuse(`self:${edge}`, `the transform ${edge} names the same frame as parent and child and was refused`);
    const nonFinite = nonFiniteField(input);
    if (nonFinite !== undefined) return this.refuse(`nan:${edge}`, `the transform ${edge} has ${nonFinite} and was refused`);
    const rotation = unitQuaternion(input.transform.rotation);
    if (rotation === undefined) {
      const { x, y, z, w } = input.transform.rotation;
      const length = Math.hypot(x, y, z, w);
      return this.refuse(
        `quaternion:${edge}`,
        `the transform ${edge} has a rotation that is not a unit quaternion (length ${length.toPrecision(3)}) and was refused`,
      );
    }
    const cycle = this.pathUp(parent, child);
    if (cycle !== undefined)
      return this.refuse(`cycle:${edge}`, `the transform ${edge} would close a cycle (${cycle.reverse().join(' → ')} already) and was refused`);
    const record = this.recordFor(parent, child, isStatic);
    if (record === undefined) return this.refuse(`full:${child}`, `the TF tree holds ${this.maxFrames} frames, its limit: the transform ${edge} was refused`);
    const entry = { stampMs: input.stampMs, transform: { translation: { ...input.transform.translation }, rotation } };
    if (isStatic) {
      record.history = [entry];
      return { ok: true };
    }
    return this.insertDynamic(record, entry, edge);
  }

  /** Whether the tree knows the frame (as a child or as a parent). */
  has(frame: string): boolean {
    const name = stripLeadingSlash(frame);
    return this.records.has(name) || this.children.has(name);
  }

  /** The root of the tree a frame hangs in (the frame itself for a root); undefined for a frame the tree does not know. */
  rootOf(frame: string): string | undefined {
    const name = stripLeadingSlash(frame);
    return this.has(name) ? this.chainUp(name).at(-1) : undefined;
  }

  /** Every frame the tree knows: those with a parent, then the roots. */
  frameNames(): string[] {
    return [...new Set([...this.records.keys(), ...this.children.keys()])];
  }

  /**
   * targetFromSource: the source frame's pose in the target frame. Without `atMs`, each link of the
   * chain at its newest transform, and a dynamic link older than its period plus STALE_MARGIN_MS
   * makes the lookup stale; at `atMs`, each dynamic link interpolated there (a time outside what it
   * keeps is an extrapolation, refused as tf2 does).
   */
  lookup(target: string, source: string, atMs?: number): TfLookupResult {
    const targetFrame = stripLeadingSlash(target);
    const sourceFrame = stripLeadingSlash(source);
    for (const frame of [targetFrame, sourceFrame]) {
      if (!this.has(frame)) return { ok: false, failure: 'unknown-frame', problem: this.unknownFrameProblem(frame) };
    }
    if (targetFrame === sourceFrame) return { ok: true, targetFromSource: IDENTITY_TRANSFORM };
    const sourceChain = this.chainUp(sourceFrame);
    const targetChain = this.chainUp(targetFrame);
    const targetDepth = new Map(targetChain.map((frame, index) => [frame, index]));
    const ancestorIndex = sourceChain.findIndex((frame) => targetDepth.has(frame));
    if (ancestorIndex < 0) {
      const rootOf = (chain: string[], frame: string) => (chain.length === 1 ? `${frame} is a root` : `${frame} hangs below ${chain.at(-1)}`);
      return {
        ok: false,
        failure: 'not-connected',
        problem: `${sourceFrame} and ${targetFrame} are in separate TF trees (${rootOf(sourceChain, sourceFrame)}, ${rootOf(targetChain, targetFrame)})`,
      };
    }
    const problems: string[] = [];
    let failure: 'stale' | 'extrapolation' = 'stale';
    const fold = (chain: string[]): RigidTransform => {
      let ancestorFromFrame: RigidTransform = IDENTITY_TRANSFORM;
      for (const child of chain) {
        const edge = this.edgeAt(child, atMs);
        if (!edge.ok) {
          problems.push(edge.problem);
          if (edge.failure === 'extrapolation') failure = 'extrapolation';
          continue;
        }
        ancestorFromFrame = composeTransforms(edge.parentFromChild, ancestorFromFrame);
      }
      return ancestorFromFrame;
    };
    const ancestorFromSource = fold(sourceChain.slice(0, ancestorIndex));
    const ancestorFromTarget = fold(targetChain.slice(0, targetDepth.get(sourceChain[ancestorIndex]!)));
    if (problems.length > 0) return { ok: false, failure, problem: problems.join('; ') };
    return { ok: true, targetFromSource: composeTransforms(invertTransform(ancestorFromTarget), ancestorFromSource) };
  }

  /** Every frame with its parent, kind, age and rate now. */
  frames(): TfFrameInfo[] {
    const nowMs = this.options.nowMs();
    const infos: TfFrameInfo[] = [];
    for (const [frame, record] of this.records) {
      const newest = record.history.at(-1);
      const doubt = record.doubt !== undefined && nowMs - record.doubt.atMs < this.historyMs ? record.doubt.problem : undefined;
      infos.push({
        frame,
        parent: record.parent,
        static: record.static,
        ageMs: record.static || newest === undefined ? undefined : Math.max(0, nowMs - newest.stampMs),
        rateHz: record.static ? undefined : rateHz(record.history, nowMs),
        problem: doubt,
      });
    }
    for (const frame of this.children.keys()) {
      if (!this.records.has(frame)) infos.push({ frame, parent: undefined, static: false, ageMs: undefined, rateHz: undefined, problem: undefined });
    }
    return infos;
  }

  /** What was refused lately (each forgotten TF_HISTORY_MS after it last happened), in words. */
  problems(): string[] {
    const nowMs = this.options.nowMs();
    for (const [key, kept] of this.recentProblems) if (nowMs - kept.atMs >= this.historyMs) this.recentProblems.delete(key);
    return [...this.recentProblems.values()].map((kept) => kept.problem);
  }

  /** Forgets the dynamic transforms (the clock jumped: a seek in a replay), keeping the static ones. */
  clearDynamic(): void {
    for (const [frame, record] of this.records) if (!record.static) this.forget(frame, record);
  }

  /** Forgets everything (another robot). */
  clear(): void {
    this.records.clear();
    this.children.clear();
    this.recentProblems.clear();
  }

  private recordFor(parent: string, child: string, isStatic: boolean): FrameRecord | undefined {
    const nowMs = this.options.nowMs();
    const record = this.records.get(child);
    if (record === undefined) {
      if (this.records.size >= this.maxFrames) return undefined;
      const created: FrameRecord = { parent, static: isStatic, history: [], doubt: undefined };
      this.records.set(child, created);
      this.adopt(parent, child);
      return created;
    }
    if (record.parent !== parent) {
      record.doubt = {
        problem: `${child} has two parents, ${record.parent} and ${parent} (two publishers disagree): the newest, ${parent}, is used`,
        atMs: nowMs,
      };
      this.disown(record.parent, child);
      this.adopt(parent, child);
      record.parent = parent;
      // The old parent's transforms say nothing about the new one.
      record.history = [];
    }
    if (record.static !== isStatic) {
      record.doubt = {
        problem: `${child} comes both as a static and as a dynamic transform: the newest (${isStatic ? 'static' : 'dynamic'}) is used`,
        atMs: nowMs,
      };
      record.static = isStatic;
      record.history = [];
    }
    return record;
  }

  private insertDynamic(record: FrameRecord, entry: Stamped, edge: string): TfAddResult {
    const history = record.history;
    const newest = history.at(-1);
    if (newest === undefined || entry.stampMs > newest.stampMs) {
      history.push(entry);
    } else if (entry.stampMs < newest.stampMs - this.historyMs) {
      const behindSecs = ((newest.stampMs - entry.stampMs) / 1000).toFixed(1);
      return this.refuse(`old:${edge}`, `a transform ${edge} stamped ${behindSecs} s before its newest was dropped (${this.historyMs / 1000} s are kept)`);
    } else {
      // Out of order: into its place; the same stamp again replaces the one there.
      let index = history.length - 1;
      while (index >= 0 && history[index]!.stampMs > entry.stampMs) index--;
      if (index >= 0 && history[index]!.stampMs === entry.stampMs) history[index] = entry;
      else history.splice(index + 1, 0, entry);
    }
    const newestMs = history.at(-1)!.stampMs;
    let drop = Math.max(0, history.length - this.maxTransformsPerFrame);
    while (drop < history.length - 1 && history[drop]!.stampMs < newestMs - this.historyMs) drop++;
    if (drop > 0) history.splice(0, drop);
    return { ok: true };
  }

  /** The transform from `child` to its parent, at its newest or at `atMs`. */
  private edgeAt(child: string, atMs: number | undefined): EdgeResult {
    const record = this.records.get(child)!;
    const history = record.history;
    const edge = `${record.parent} → ${child}`;
    if (record.static) return { ok: true, parentFromChild: history[0]!.transform };
    const newest = history.at(-1);
    if (newest === undefined) return { ok: false, failure: 'stale', problem: `${edge} has no transform yet` };
    if (atMs === undefined) {
      const ageMs = this.options.nowMs() - newest.stampMs;
      if (ageMs > this.staleMarginMs + periodMs(history)) return { ok: false, failure: 'stale', problem: `${edge} is ${(ageMs / 1000).toFixed(1)} s old` };
      return { ok: true, parentFromChild: newest.transform };
    }
    if (atMs > newest.stampMs)
      return { ok: false, failure: 'extrapolation', problem: `${edge} is asked ${((atMs - newest.stampMs) / 1000).toFixed(3)} s after its newest transform` };
    const oldest = history[0]!;
    if (atMs < oldest.stampMs)
      return {
        ok: false,
        failure: 'extrapolation',
        problem: `${edge} is asked ${((oldest.stampMs - atMs) / 1000).toFixed(3)} s before its oldest kept transform`,
      };
    let after = history.length - 1;
    while (after > 0 && history[after - 1]!.stampMs >= atMs) after--;
    const later = history[after]!;
    if (later.stampMs === atMs || after === 0) return { ok: true, parentFromChild: later.transform };
    const earlier = history[after - 1]!;
    const fraction = (atMs - earlier.stampMs) / (later.stampMs - earlier.stampMs);
    return { ok: true, parentFromChild: interpolateTransforms(earlier.transform, later.transform, fraction) };
  }

  /** The frame and its ancestors up to the root. */
  private chainUp(frame: string): string[] {
    const chain = [frame];
    let at = this.records.get(frame);
    // The tree never holds a cycle (add refuses one); the bound is a second guard.
    while (at !== undefined && chain.length <= this.records.size) {
      chain.push(at.parent);
      at = this.records.get(at.parent);
    }
    return chain;
  }

  /** The frames from `from` up to `to` where `to` is an ancestor of `from` (or `from` itself); undefined otherwise. */
  private pathUp(from: string, to: string): string[] | undefined {
    const chain = this.chainUp(from);
    const index = chain.indexOf(to);
    return index < 0 ? undefined : chain.slice(0, index + 1);
  }

  private unknownFrameProblem(frame: string): string {
    const names = this.frameNames();
    if (names.length === 0) return `no frame ${frame}: the TF tree is empty`;
    const more = names.length > FRAMES_NAMED ? ` and ${names.length - FRAMES_NAMED} more` : '';
    return `no frame ${frame} in the TF tree; it has ${names.slice(0, FRAMES_NAMED).join(', ')}${more}`;
  }

  private refuse(key: string, problem: string): TfAddResult {
    this.recentProblems.delete(key);
    this.recentProblems.set(key, { problem, atMs: this.options.nowMs() });
    if (this.recentProblems.size > MAX_PROBLEMS) this.recentProblems.delete(this.recentProblems.keys().next().value!);
    return { ok: false, problem };
  }

  private adopt(parent: string, child: string): void {
    const siblings = this.children.get(parent) ?? new Set<string>();
    siblings.add(child);
    this.children.set(parent, siblings);
  }

  private disown(parent: string, child: string): void {
    const siblings = this.children.get(parent);
    siblings?.delete(child);
    if (siblings?.size === 0) this.children.delete(parent);
  }

  private forget(frame: string, record: FrameRecord): void {
    this.records.delete(frame);
    this.disown(record.parent, frame);
  }
}

/** The first field of a transform that is not a finite number, in words; undefined when all are. */
function nonFiniteField(input: StampedTransform): string | undefined {
  const { translation, rotation } = input.transform;
  const fields: Array<[string, number]> = [
    ['translation.x', translation.x],
    ['translation.y', translation.y],
    ['translation.z', translation.z],
    ['rotation.x', rotation.x],
    ['rotation.y', rotation.y],
    ['rotation.z', rotation.z],
    ['rotation.w', rotation.w],
    ['stamp', input.stampMs],
  ];
  for (const [name, value] of fields) {
    if (typeof value !== 'number') return `no number in ${name}`;
    if (!Number.isFinite(value)) return `${Number.isNaN(value) ? 'a NaN' : 'an infinity'} in ${name}`;
  }
  return undefined;
}

/** The publisher's period from its last few transforms; 0 with fewer than two. */
function periodMs(history: readonly Stamped[]): number {
  const count = Math.min(history.length, PERIOD_SAMPLES);
  if (count < 2) return 0;
  return (history.at(-1)!.stampMs - history[history.length - count]!.stampMs) / (count - 1);
}

function rateHz(history: readonly Stamped[], nowMs: number): number | undefined {
  let first = history.length;
  while (first > 0 && history[first - 1]!.stampMs >= nowMs - TF_RATE_WINDOW_MS) first--;
  const count = history.length - first;
  if (count === 0) return 0;
  if (count === 1) return undefined;
  const spanMs = history.at(-1)!.stampMs - history[first]!.stampMs;
  return spanMs > 0 ? ((count - 1) * 1000) / spanMs : undefined;
}
