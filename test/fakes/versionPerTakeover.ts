// A PolicyImprover whose versions arrive at moments the test scripts: each new intervention in the
// operator's feedback is answered at once, inside the call that reported it, with a new policy. The
// real learner trains in a worker thread and offers versions whenever a round ends; this one makes a
// promotion land inside a tick's listeners, on the tick the operator took over, every time.
// Lives in test/fakes: only tests import it.
import type { DriveCommand } from '../../main/core/messages.ts';
import type { Policy } from '../../main/core/policy.ts';
import type { FeedbackSignals, Segment } from '../../main/learning/feedbackTypes.ts';
import type { PolicyCandidate, PolicyImprover } from '../../main/learning/policyImprover.ts';

/** Version n drives a fixed arc of its own, so the memory shows which version moved the robot. */
class ScriptedPolicy implements Policy {
  readonly version: string;
  private readonly command: DriveCommand;

  constructor(number: number) {
    this.version = `scripted-${number}`;
    this.command = { linearMps: 0.05 * number, angularRadps: number % 2 === 0 ? 0.3 : -0.3 };
  }

  act(): DriveCommand {
    return { ...this.command };
  }
}

export class VersionPerTakeover implements PolicyImprover {
  observed = 0;
  /** The versions offered so far, in order. */
  readonly offered: string[] = [];
  private readonly listeners = new Set<(candidate: PolicyCandidate) => void>();

  observe(): void {
    this.observed++;
  }

  disagreement(a: Segment, b: Segment): number {
    return Math.abs(a.startStep - b.startStep);
  }

  /**
   * A fixed function of the tick's embedding: the real ensemble's weights change only between ticks
   * (when its thread answers), so within one tick every listener that asks gets the same estimate.
   */
  rewardEstimate(embedding: Float32Array): number {
    return Math.tanh(embedding.reduce((sum, value) => sum + value, 0) / embedding.length);
  }

  feedbackChanged(signals: FeedbackSignals): void {
    while (this.offered.length < signals.interventions.length) {
      const policy = new ScriptedPolicy(this.offered.length + 2);
      this.offered.push(policy.version);
      const candidate: PolicyCandidate = { policy, trainedOn: { interventions: signals.interventions.length, preferences: 0, ratings: 0, operatorTicks: 0 } };
      for (const listener of this.listeners) listener(candidate);
    }
  }

  onCandidate(listener: (candidate: PolicyCandidate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {}
}
