// The `expert` operator: today's ScriptedOperator, unchanged, behind the common interface. It answers
// every question (10 % wrongly) and never rates; only the takeover tally is new.
import type { DriveCommand } from '../../core/messages.ts';
import type { Arena } from '../arena.ts';
import { ScriptedOperator, type OperatorDecision, type SegmentTruth } from '../scriptedOperator.ts';
import type { GroundTruth } from '../simRobot.ts';
import type { OperatorRating, PreferenceAnswer, SimOperator, TakeoverCounts } from './simOperator.ts';
import { TakeoverTally } from './takeoverTally.ts';

export class ExpertOperator implements SimOperator {
  readonly name = 'expert';
  private readonly scripted: ScriptedOperator;
  private readonly tally = new TakeoverTally();

  constructor(arena: Arena, seed: number) {
    this.scripted = new ScriptedOperator(arena, { seed });
  }

  drive(truth: GroundTruth): DriveCommand {
    return this.scripted.drive(truth);
  }

  supervise(truth: GroundTruth, proposed: DriveCommand): OperatorDecision {
    const decision = this.scripted.supervise(truth, proposed);
    this.tally.observe(truth, decision.driver);
    return decision;
  }

  prefer(a: SegmentTruth, b: SegmentTruth): PreferenceAnswer {
    return this.scripted.prefer(a, b);
  }

  rate(_truth: GroundTruth): OperatorRating | undefined {
    return undefined;
  }

  takeovers(): TakeoverCounts {
    return this.tally.snapshot();
  }
}
