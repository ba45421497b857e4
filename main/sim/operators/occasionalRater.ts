// An operator busy supervising rates the policy's driving only now and then: at random moments (a
// Poisson process over the policy's driving time) it judges the last few seconds it watched, if it
// has an opinion, and is sometimes wrong.
import type { SeededRandom } from '../random.ts';
import type { GroundTruth } from '../simRobot.ts';
import type { RealisticOperatorParameters } from './realisticParameters.ts';
import type { OperatorRating } from './simOperator.ts';

export type RaterParameters = Pick<RealisticOperatorParameters, 'ratingMeanIntervalSecs' | 'ratingWindowSecs' | 'wrongRatingRate'>;

/** Progress over the window that looks good; at most this little looks stuck. In between: no opinion. */
const GOOD_PROGRESS = 0.05;
const STUCK_PROGRESS = 0.01;
/** A longer gap between calls means the policy stopped driving: the watching starts over. */
const MAX_GAP_SECS = 0.25;

interface WatchedTick {
  simTimeSecs: number;
  episodeIndex: number;
  progress: number;
  collisionCount: number;
}

export class OccasionalRater {
  private watched: WatchedTick[] = [];

  constructor(
    private readonly parameters: RaterParameters,
    private readonly random: SeededRandom,
  ) {}

  /** Called each tick the policy drives; a rating of the last ratingWindowSecs now and then, else undefined. */
  rate(truth: GroundTruth): OperatorRating | undefined {
    const nowSecs = truth.simTimeSecs;
    const previous = this.watched.at(-1);
    if (previous !== undefined && nowSecs - previous.simTimeSecs > MAX_GAP_SECS) this.watched = [];
    this.watched.push({ simTimeSecs: nowSecs, episodeIndex: truth.episode.index, progress: truth.episode.progress, collisionCount: truth.collisionCount });
    const windowSecs = this.parameters.ratingWindowSecs;
    while (this.watched.length > 1 && nowSecs - this.watched[1]!.simTimeSecs >= windowSecs - 1e-9) this.watched.shift();
    const dtSecs = previous === undefined ? 0 : Math.min(nowSecs - previous.simTimeSecs, MAX_GAP_SECS);
    const rates = this.random.next() < 1 - Math.exp(-dtSecs / this.parameters.ratingMeanIntervalSecs);
    if (!rates || nowSecs - this.watched[0]!.simTimeSecs < windowSecs - 1e-9) return undefined;
    const verdict = judge(this.watched, truth);
    if (verdict === undefined) return undefined;
    this.watched = [];
    if (this.random.next() >= this.parameters.wrongRatingRate) return verdict;
    return verdict === 'good' ? 'bad' : 'good';
  }
}

/** A crash is bad; a finished episode is good if it succeeded; otherwise clear progress is good and none is bad. */
function judge(watched: readonly WatchedTick[], truth: GroundTruth): OperatorRating | undefined {
  const first = watched[0]!;
  const last = watched.at(-1)!;
  if (last.collisionCount > first.collisionCount) return 'bad';
  if (last.episodeIndex !== first.episodeIndex) return truth.lastEndedEpisode?.status === 'succeeded' ? 'good' : 'bad';
  const gained = last.progress - first.progress;
  if (gained >= GOOD_PROGRESS) return 'good';
  if (gained <= STUCK_PROGRESS) return 'bad';
  return undefined;
}
