// The numbered policy versions of a session (DESIGN §3): v1 is the policy the session started with,
// every learner update is a candidate. Each keeps how it did while it drove — interventions per
// minute of policy driving, and its good/bad ratings — so the operator can see the rate fall and
// pick. The driving version changes only on promote (operator approval), on a new candidate with
// auto-promote on and not held, or on roll back.
import type { Policy } from '../core/policy.ts';
import { InterventionTrend, type InterventionTrendOptions } from './interventionTrend.ts';
import type { PolicyCandidate } from './policyImprover.ts';

export interface PolicyVersion {
  number: number;
  /** The policy's own name for itself (Policy.version), kept when its weights are released. */
  name: string;
  /** Undefined once released: only the versions that can still be asked to drive keep their weights. */
  policy: Policy | undefined;
  createdAtMs: number;
  /** What the update learned from; undefined for v1. */
  trainedOn: PolicyCandidate['trainedOn'] | undefined;
  /** Wall time this version drove (driver 'policy'), in ms. */
  policyDrivingMs: number;
  interventions: number;
  good: number;
  bad: number;
  /** The promotion gate's verdict on it as a candidate, where the learner gave one. */
  evaluation?: PolicyCandidate['evaluation'];
  /** Seconds to the goal of the latest episodes it drove to the goal alone (no takeover), oldest first. */
  goalSecs: number[];
}

/** Episodes kept per version for its time-to-goal. */
const KEPT_GOAL_EPISODES = 50;

export interface PolicyVersionsOptions {
  autoPromote: boolean;
  /** An intervention rate is shown only after a version has driven this long. */
  minDrivingSecsForRate: number;
  clock: () => number;
  /**
   * Versions whose weights stay in memory besides v1 and the driving one: the newest this many, and as
   * many roll-back steps. A session adds a candidate every few seconds; keeping every one grew the core
   * by ~2.5 MiB a minute. Matches the newest 20 that policyCheckpoints keeps on disk.
   */
  keepPolicies: number;
  /** The intervention rate over stretches of driving time, whichever versions drove them. */
  trend: Partial<InterventionTrendOptions>;
}

/** A policy that holds resources of its own (a LearnedPolicy's tensors). */
interface Disposable {
  dispose(): void;
}

export type VersionsResult = { ok: true; message: string } | { ok: false; message: string };

/** Longest gap between two ticks that counts as driving time (a stalled loop is not driving). */
const MAX_TICK_GAP_MS = 1000;

export class PolicyVersions {
  private readonly versions: PolicyVersion[] = [];
  readonly trend: InterventionTrend;
  private readonly options: PolicyVersionsOptions;
  private readonly drivingListeners = new Set<(version: PolicyVersion, policy: Policy) => void>();
  /** Versions that drove before the current one, most recent last (for roll back). */
  private readonly previous: number[] = [];
  private drivingNumber = 1;
  private held = false;
  private lastTickMs: number | undefined;

  constructor(initial: Policy, options: Partial<PolicyVersionsOptions> = {}) {
    this.options = { autoPromote: false, minDrivingSecsForRate: 10, clock: Date.now, keepPolicies: 20, trend: {}, ...options };
    this.trend = new InterventionTrend(this.options.trend);
    if (!Number.isInteger(this.options.keepPolicies) || this.options.keepPolicies < 1)
      throw new RangeError(`keepPolicies must be a whole number ≥ 1, got ${this.options.keepPolicies}`);
    this.versions.push(newVersion(1, initial, this.options.clock(), undefined));
  }

  all(): readonly PolicyVersion[] {
    return this.versions;
  }

  get(number: number): PolicyVersion | undefined {
    return this.versions[number - 1];
  }

  driving(): PolicyVersion {
    return this.versions[this.drivingNumber - 1]!;
  }

  isHeld(): boolean {
    return this.held;
  }

  autoPromotes(): boolean {
    return this.options.autoPromote;
  }

  /** Interventions per minute of policy driving; undefined until the version has driven long enough. */
  interventionRatePerMin(version: PolicyVersion): number | undefined {
    if (version.policyDrivingMs < this.options.minDrivingSecsForRate * 1000) return undefined;
    return version.interventions / (version.policyDrivingMs / 60_000);
  }

  /** Registers a candidate; it drives at once when auto-promote is on and versions are not held. */
  add(candidate: PolicyCandidate): { version: PolicyVersion; promoted: boolean } {
    const version = newVersion(this.versions.length + 1, candidate.policy, this.options.clock(), candidate.trainedOn);
    this.versions.push(version);
    version.evaluation = candidate.evaluation;
    // The promotion gate's refusal holds auto-promote back; the operator can still promote it by hand.
    const promoted = this.options.autoPromote && !this.held && (candidate.evaluation === undefined || candidate.evaluation.verdict === 'promote');
    if (promoted) this.drive(version.number, true);
    this.releaseUnreachable();
    return { version, promoted };
  }

  promote(number: number): VersionsResult {
    const version = this.get(number);
    if (!version) return { ok: false, message: `There is no version ${number} (the newest is v${this.versions.length})` };
    if (this.held) return { ok: false, message: 'Versions are held: release the hold before promoting' };
    if (number === this.drivingNumber) return { ok: false, message: `v${number} is already driving` };
    if (version.policy === undefined) {
      return {
        ok: false,
        message: `v${number} is no longer kept: only the newest ${this.options.keepPolicies} versions, the last ${this.options.keepPolicies} roll-back steps and v1 can drive`,
      };
    }
    this.drive(number, true);
    this.releaseUnreachable();
    return { ok: true, message: `v${number} drives now` };
  }

  rollback(): VersionsResult {
    if (this.held) return { ok: false, message: 'Versions are held: release the hold before rolling back' };
    const to = this.previous.pop();
    if (to === undefined) return { ok: false, message: `Nothing to roll back to: v${this.drivingNumber} is the first version that drove` };
    const from = this.drivingNumber;
    this.drive(to, false);
    return { ok: true, message: `Rolled back from v${from} to v${to}` };
  }

  hold(held: boolean): VersionsResult {
    this.held = held;
    return { ok: true, message: held ? `Holding v${this.drivingNumber}: no version change until released` : 'Hold released' };
  }

  setAutoPromote(enabled: boolean): VersionsResult {
    this.options.autoPromote = enabled;
    return { ok: true, message: enabled ? 'Auto-promote on: new versions drive as they arrive' : 'Auto-promote off: promote new versions yourself' };
  }

  /** Counts driving time for the version that drove the tick. */
  noteTick(timeMs: number, policyDrove: boolean, drivingNumber: number): void {
    const gapMs = this.lastTickMs === undefined ? 0 : timeMs - this.lastTickMs;
    this.lastTickMs = timeMs;
    if (!policyDrove || gapMs <= 0) return;
    const version = this.get(drivingNumber);
    if (!version) return;
    const drivenMs = Math.min(gapMs, MAX_TICK_GAP_MS);
    version.policyDrivingMs += drivenMs;
    this.trend.noteDriving(drivenMs, drivingNumber);
  }

  noteIntervention(drivingNumber: number): void {
    const version = this.get(drivingNumber);
    if (!version) return;
    version.interventions++;
    this.trend.noteIntervention(drivingNumber);
  }

  /** An episode the version drove to the goal with no takeover, in `secs`. */
  noteGoalReached(drivingNumber: number, secs: number): void {
    const version = this.get(drivingNumber);
    if (!version || !(Number.isFinite(secs) && secs >= 0)) return;
    version.goalSecs.push(secs);
    if (version.goalSecs.length > KEPT_GOAL_EPISODES) version.goalSecs.shift();
  }

  /** The median seconds to the goal of its unaided episodes; undefined before it has finished one. */
  medianGoalSecs(version: PolicyVersion): number | undefined {
    if (version.goalSecs.length === 0) return undefined;
    const sorted = [...version.goalSecs].sort((a, b) => a - b);
    const middle = sorted.length / 2;
    return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  }

  /** A rating of a moment the version drove; `withdrawn` takes one back (undo). */
  noteRating(drivingNumber: number, rating: 1 | -1, withdrawn = false): void {
    const version = this.get(drivingNumber);
    if (!version) return;
    const delta = withdrawn ? -1 : 1;
    if (rating > 0) version.good = Math.max(0, version.good + delta);
    else version.bad = Math.max(0, version.bad + delta);
  }

  /** Told whenever the driving version changes, with its policy (a version that drives always keeps it). */
  onDrivingChange(listener: (version: PolicyVersion, policy: Policy) => void): () => void {
    this.drivingListeners.add(listener);
    return () => this.drivingListeners.delete(listener);
  }

  private drive(number: number, remember: boolean): void {
    if (number === this.drivingNumber) return;
    if (remember) {
      this.previous.push(this.drivingNumber);
      if (this.previous.length > this.options.keepPolicies) this.previous.splice(0, this.previous.length - this.options.keepPolicies);
    }
    this.drivingNumber = number;
    const version = this.driving();
    const policy = version.policy;
    // promote() and rollback() only reach versions that keep their weights; releaseUnreachable() keeps the driving one.
    if (policy === undefined) throw new Error(`v${number} has no weights to drive with`);
    for (const listener of this.drivingListeners) listener(version, policy);
  }

  /** Releases the weights of versions that can no longer drive: not v1, driving, newest, or a roll-back step. */
  private releaseUnreachable(): void {
    const keep = new Set([1, this.drivingNumber, ...this.previous]);
    for (let number = Math.max(1, this.versions.length - this.options.keepPolicies + 1); number <= this.versions.length; number++) keep.add(number);
    for (const version of this.versions) {
      if (keep.has(version.number) || version.policy === undefined) continue;
      const policy = version.policy as Policy & Partial<Disposable>;
      version.policy = undefined;
      policy.dispose?.();
    }
  }
}

function newVersion(number: number, policy: Policy, createdAtMs: number, trainedOn: PolicyCandidate['trainedOn'] | undefined): PolicyVersion {
  return { number, name: policy.version, policy, createdAtMs, trainedOn, policyDrivingMs: 0, interventions: 0, good: 0, bad: 0, goalSecs: [] };
}
