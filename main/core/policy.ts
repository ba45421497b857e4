// The policy as the control loop knows it: each tick it proposes an action from what the tick saw.
// The learned policies (learning/) and the reactive baseline implement it; the loop swaps versions.
import type { Belief } from './belief.ts';
import type { ObservationFrame } from './frame.ts';
import type { DriveCommand } from './messages.ts';
import type { Embedding } from './perception.ts';

/** What a policy sees at a tick: the fused embedding, the frame it was encoded from, and the world model's belief. */
export interface PolicyInput {
  embedding: Embedding;
  frame: ObservationFrame;
  belief?: Belief | undefined;
}

export interface Policy {
  readonly version: string;
  act(input: PolicyInput): DriveCommand;
}
