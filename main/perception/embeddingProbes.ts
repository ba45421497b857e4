// The three probes that say whether an embedding is useful: can a straight line through it recover
// the goal's bearing and distance (on frames where the goal is in view) and the nearest obstacle's
// distance (on all frames)? Fitted on one set of views, scored on another.
import { fitLinearProbes, rSquared } from '../core/util/linearProbe.ts';

export interface ProbeSample {
  embedding: Float32Array;
  goalInView: boolean;
  goalBearingRad: number;
  goalDistanceM: number;
  nearestObstacleM: number;
}

export interface ProbeScores {
  /** Mean R² of the bearing's sine and cosine. */
  goalBearingR2: number;
  goalDistanceR2: number;
  obstacleDistanceR2: number;
  fittedOn: { inView: number; all: number };
  scoredOn: { inView: number; all: number };
}

export function scoreProbes(fit: readonly ProbeSample[], score: readonly ProbeSample[]): ProbeScores {
  const fitInView = fit.filter((s) => s.goalInView);
  const scoreInView = score.filter((s) => s.goalInView);
  if (fitInView.length < 10 || scoreInView.length < 10)
    throw new Error(`too few views with the goal in sight to probe (${fitInView.length} to fit, ${scoreInView.length} to score)`);
  const [sinProbe, cosProbe, distanceProbe] = fitLinearProbes(
    fitInView.map((s) => s.embedding),
    [fitInView.map((s) => Math.sin(s.goalBearingRad)), fitInView.map((s) => Math.cos(s.goalBearingRad)), fitInView.map((s) => s.goalDistanceM)],
  );
  const [obstacleProbe] = fitLinearProbes(
    fit.map((s) => s.embedding),
    [fit.map((s) => s.nearestObstacleM)],
  );
  const inViewRows = scoreInView.map((s) => s.embedding);
  return {
    goalBearingR2:
      (rSquared(
        sinProbe!,
        inViewRows,
        scoreInView.map((s) => Math.sin(s.goalBearingRad)),
      ) +
        rSquared(
          cosProbe!,
          inViewRows,
          scoreInView.map((s) => Math.cos(s.goalBearingRad)),
        )) /
      2,
    goalDistanceR2: rSquared(
      distanceProbe!,
      inViewRows,
      scoreInView.map((s) => s.goalDistanceM),
    ),
    obstacleDistanceR2: rSquared(
      obstacleProbe!,
      score.map((s) => s.embedding),
      score.map((s) => s.nearestObstacleM),
    ),
    fittedOn: { inView: fitInView.length, all: fit.length },
    scoredOn: { inView: scoreInView.length, all: score.length },
  };
}
