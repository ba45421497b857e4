// How much training the ticks received so far pay for (DreamerV3's train ratio): each step trains on
// batch × sequence length ticks, and the learner may train `replayRatio` ticks per tick received
// since it started. Ticks already in memory at start can be replayed but owe no training, so a
// restart on a large memory does not set off a long burst that starves the control loop's core.
export class ReplayBudget {
  private ticksReceived = 0;
  private stepsTaken = 0;

  constructor(
    private readonly replayRatio: number,
    private readonly ticksPerStep: number,
  ) {}

  receive(tickCount: number): void {
    this.ticksReceived += tickCount;
  }

  recordStep(): void {
    this.stepsTaken++;
  }

  /** Whether one more step stays within the ratio. */
  allowsStep(): boolean {
    return (this.stepsTaken + 1) * this.ticksPerStep <= this.replayRatio * this.ticksReceived;
  }

  /** Ticks trained on per tick received; 0 before any tick arrived. */
  achievedRatio(): number {
    return this.ticksReceived === 0 ? 0 : (this.stepsTaken * this.ticksPerStep) / this.ticksReceived;
  }
}
