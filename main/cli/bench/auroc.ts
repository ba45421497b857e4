// The area under the ROC curve of a score that should be higher on positives (e.g. surprise on the
// ticks after an injected event) than on negatives (normal ticks): the chance that a random positive
// outscores a random negative, ties counting half. Computed from ranks (the Mann–Whitney U).

/** AUROC in [0, 1]: 1 separates perfectly, 0.5 is chance, 0 is perfectly inverted. */
export function auroc(positiveScores: ArrayLike<number>, negativeScores: ArrayLike<number>): number {
  const positives = positiveScores.length;
  const negatives = negativeScores.length;
  if (positives === 0 || negatives === 0) throw new RangeError(`auroc needs at least one positive and one negative score, got ${positives} and ${negatives}`);
  const scored: Array<{ score: number; positive: boolean }> = [];
  const add = (scores: ArrayLike<number>, positive: boolean, name: string): void => {
    for (let i = 0; i < scores.length; i++) {
      const score = scores[i]!;
      if (!Number.isFinite(score)) throw new RangeError(`auroc: ${name} score ${i} is ${score}, not a finite number`);
      scored.push({ score, positive });
    }
  };
  add(positiveScores, true, 'positive');
  add(negativeScores, false, 'negative');
  scored.sort((a, b) => a.score - b.score);

  // Sum of the positives' ranks (1-based), tied scores sharing the mean of their ranks.
  let positiveRankSum = 0;
  for (let start = 0; start < scored.length;) {
    let end = start;
    while (end < scored.length && scored[end]!.score === scored[start]!.score) end++;
    const meanRank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) if (scored[i]!.positive) positiveRankSum += meanRank;
    start = end;
  }
  const u = positiveRankSum - (positives * (positives + 1)) / 2;
  return u / (positives * negatives);
}
