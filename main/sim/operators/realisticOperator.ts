// The `realistic` operator: the expert's knowledge of the map, driven as people drive. It sees each
// tick a reaction time late (drawn per event), drives the expert's plan at half to two thirds of the
// allowed speed with a wider berth, its hand lags and over-corrects, it takes over only when the crash
// it saw coming a reaction time ago is under a second away (or the robot has long been stuck),
// sometimes hands back too early, skips and gets wrong a fifth of the preference questions each, and
// rates rarely. Every figure is in realisticParameters.ts with its source.
import type { DriveCommand } from '../../core/messages.ts';
import type { Arena, Footprints } from '../arena.ts';
import { timeToCollisionSecs } from '../collisionForecast.ts';
import { DIFF_DRIVE_SPEC } from '../diffDrive.ts';
import { deriveSeed, SeededRandom } from '../random.ts';
import { ScriptedOperator, type OperatorDecision, type SegmentTruth, type TakeoverReason } from '../scriptedOperator.ts';
import type { GroundTruth } from '../simRobot.ts';
import { DelayedView } from './delayedView.ts';
import { OccasionalRater } from './occasionalRater.ts';
import { REALISTIC_OPERATOR_PARAMETERS, type RealisticOperatorParameters } from './realisticParameters.ts';
import type { OperatorRating, PreferenceAnswer, SimOperator, TakeoverCounts } from './simOperator.ts';
import { TakeoverTally } from './takeoverTally.ts';
import { UnsteadyHand } from './unsteadyHand.ts';

/** The interface's control tick. */
const CONTROL_TICK_SECS = 0.1;
/** Progress must grow by this much to count as progress, as for the expert. */
const PROGRESS_STEP = 0.02;
const STOP: DriveCommand = Object.freeze({ linearMps: 0, angularRadps: 0 });

interface Watched {
  truth: GroundTruth;
  proposed: DriveCommand;
  /** Who drove this tick: only the policy's own ticks can make the operator take over. */
  driver: 'policy' | 'operator';
}

interface Takeover {
  reason: TakeoverReason;
  untilSecs: number;
}

export class RealisticOperator implements SimOperator {
  readonly name = 'realistic';
  private readonly parameters: RealisticOperatorParameters;
  /** One stream per kind of choice, so that asking more questions does not change how it drives. */
  private readonly eventRandom: SeededRandom;
  private readonly answerRandom: SeededRandom;
  private readonly hand: UnsteadyHand;
  private readonly rater: OccasionalRater;
  private readonly tally = new TakeoverTally();
  private readonly view = new DelayedView<Watched>();
  private episodeIndex: number | undefined;
  /** The expert's planning and path following for this episode, with the wider berth, acting at once on what it is shown. */
  private planner: ScriptedOperator | undefined;
  private footprints: { key: string; obstacles: Footprints } | undefined;
  private reactionSecs = 0;
  private cruiseMps = 0;
  private takeover: Takeover | undefined;
  private bestProgress = 0;
  private lastProgressSecs = 0;
  private lastCommand: DriveCommand = STOP;

  constructor(
    private readonly arena: Arena,
    private readonly seed: number,
    parameters: Partial<RealisticOperatorParameters> = {},
  ) {
    this.parameters = { ...REALISTIC_OPERATOR_PARAMETERS, ...parameters };
    this.eventRandom = new SeededRandom(deriveSeed('realistic-operator', seed, 'events'));
    this.answerRandom = new SeededRandom(deriveSeed('realistic-operator', seed, 'answers'));
    this.hand = new UnsteadyHand(this.parameters, new SeededRandom(deriveSeed('realistic-operator', seed, 'hand')));
    this.rater = new OccasionalRater(this.parameters, new SeededRandom(deriveSeed('realistic-operator', seed, 'ratings')));
  }

  /** The reaction time in force for the next event (exposed for tests and reports). */
  get currentReactionSecs(): number {
    return this.reactionSecs;
  }

  /** This episode's cruising speed (exposed for tests and reports). */
  get currentCruiseMps(): number {
    return this.cruiseMps;
  }

  drive(truth: GroundTruth): DriveCommand {
    this.noteEpisode(truth);
    const watched: Watched = { truth, proposed: STOP, driver: 'operator' };
    this.view.push(truth.simTimeSecs, watched);
    const seen = this.view.seen(truth.simTimeSecs - this.reactionSecs);
    this.lastCommand = seen === undefined ? STOP : this.steer(seen.truth);
    return this.lastCommand;
  }

  supervise(truth: GroundTruth, proposed: DriveCommand): OperatorDecision {
    this.noteEpisode(truth);
    const nowSecs = truth.simTimeSecs;
    if (this.takeover !== undefined && nowSecs >= this.takeover.untilSecs - 1e-9) this.handBack(nowSecs);
    const watched: Watched = { truth, proposed, driver: 'policy' };
    this.view.push(nowSecs, watched);
    const seen = this.view.seen(nowSecs - this.reactionSecs);
    if (seen !== undefined) this.trackProgress(seen.truth);
    if (this.takeover === undefined && seen?.driver === 'policy') {
      const reason = this.takeoverReason(seen);
      if (reason !== undefined) this.takeOver(reason, nowSecs);
    }
    const decision: OperatorDecision =
      this.takeover !== undefined && seen !== undefined
        ? { driver: 'operator', command: this.steer(seen.truth), reason: this.takeover.reason }
        : { driver: 'policy', command: proposed, reason: undefined };
    watched.driver = decision.driver;
    this.tally.observe(truth, decision.driver);
    this.lastCommand = decision.command;
    return decision;
  }

  /** No collision beats a collision, then more progress wins; a fifth skipped, a fifth wrong. */
  prefer(a: SegmentTruth, b: SegmentTruth): PreferenceAnswer {
    const draw = this.answerRandom.next();
    if (draw < this.parameters.skipRate) return 'skip';
    const score = (segment: SegmentTruth): number => (segment.collided ? -1 : 0) + segment.endProgress - segment.startProgress;
    const better = score(a) >= score(b) ? 'a' : 'b';
    if (draw < this.parameters.skipRate + this.parameters.wrongAnswerRate) return better === 'a' ? 'b' : 'a';
    return better;
  }

  rate(truth: GroundTruth): OperatorRating | undefined {
    return this.rater.rate(truth);
  }

  takeovers(): TakeoverCounts {
    return this.tally.snapshot();
  }

  /** A new episode: nothing seen of it yet, a fresh reaction time, speed and plan, nothing to take over from. */
  private noteEpisode(truth: GroundTruth): void {
    if (truth.episode.index === this.episodeIndex) return;
    this.episodeIndex = truth.episode.index;
    this.view.clear();
    this.takeover = undefined;
    this.drawReaction();
    const { cruiseMinMps, cruiseMaxMps, planMarginM } = this.parameters;
    this.cruiseMps = this.eventRandom.uniform(cruiseMinMps, cruiseMaxMps);
    this.planner = new ScriptedOperator(this.arena, {
      seed: this.seed,
      reactionDelayTicks: 0,
      linearNoiseMps: 0,
      angularNoiseRadps: 0,
      planMarginM,
    });
    this.hand.grab(STOP);
    this.bestProgress = truth.episode.progress;
    this.lastProgressSecs = truth.simTimeSecs;
  }

  private drawReaction(): void {
    this.reactionSecs = this.eventRandom.uniform(this.parameters.reactionMinSecs, this.parameters.reactionMaxSecs);
  }

  private takeOver(reason: TakeoverReason, nowSecs: number): void {
    const { earlyHandBackRate, earlyHandBackSecs, driveSecs } = this.parameters;
    const early = this.eventRandom.next() < earlyHandBackRate;
    this.takeover = { reason, untilSecs: nowSecs + (early ? earlyHandBackSecs : driveSecs) };
    this.hand.grab(this.lastCommand);
  }

  /** Hands back; the next event gets its own reaction time, and the progress clock starts over. */
  private handBack(nowSecs: number): void {
    this.takeover = undefined;
    this.lastProgressSecs = nowSecs;
    this.drawReaction();
  }

  private trackProgress(seen: GroundTruth): void {
    if (seen.episode.progress < this.bestProgress + PROGRESS_STEP) return;
    this.bestProgress = seen.episode.progress;
    this.lastProgressSecs = seen.simTimeSecs;
  }

  /** Judged on what it saw a reaction time ago: the policy's command then, from where the robot was then. */
  private takeoverReason(seen: Watched): TakeoverReason | undefined {
    const { truth, proposed } = seen;
    if (truth.episode.status !== 'running') return undefined;
    const horizonSecs = this.parameters.takeoverTimeToCollisionSecs;
    if (timeToCollisionSecs(truth, proposed, this.obstaclesFor(truth), horizonSecs) < horizonSecs) return 'imminent-collision';
    if (truth.simTimeSecs - this.lastProgressSecs >= this.parameters.stallSecs - 1e-9) return 'no-progress';
    return undefined;
  }

  /** What it means to do about what it saw (the expert's plan, slower and wider), through its hand. */
  private steer(seen: GroundTruth): DriveCommand {
    const expert = this.planner?.drive(seen) ?? STOP;
    // The expert's pace scaled down to its own: cruising on open ground, proportionally slower where it is tight.
    const pace = this.cruiseMps / DIFF_DRIVE_SPEC.maxLinearMps;
    const intended = { linearMps: expert.linearMps * pace, angularRadps: expert.angularRadps * pace };
    return this.hand.move(intended, CONTROL_TICK_SECS);
  }

  /** The solids it knows of, as the expert knows them: the arena's, the task's and whatever was dropped in this episode. */
  private obstaclesFor(truth: GroundTruth): Footprints {
    const key = `${truth.episode.index}/${truth.droppedObstacles.length}`;
    if (this.footprints?.key !== key) {
      const boxes = [...this.arena.walls, ...this.arena.obstacles, ...truth.taskObstacles.boxes];
      this.footprints = { key, obstacles: { boxes, pillars: [...truth.taskObstacles.pillars, ...truth.droppedObstacles] } };
    }
    return this.footprints.obstacles;
  }
}
