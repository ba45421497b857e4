// The policy learner's worker thread: it holds the ticks and the networks and trains them when the
// core asks for a round, so that the control loop never waits for a gradient step (DESIGN §1).
import { parentPort } from 'node:worker_threads';
import { runBehindTheLoop } from '../loop/backgroundPriority.ts';
import { loadLearnerBackend } from '../worldmodel/learner/learnerBackend.ts';
import { PolicyLearner } from './policyLearner.ts';
import type { FromPolicyWorker, ToPolicyWorker } from './policyWorkerProtocol.ts';
import { TickBuffer } from './tickBuffer.ts';

const port = parentPort;
if (port === null) throw new Error('policyWorker.ts runs only as a worker thread');
// Training gives way to the control loop's thread whenever both want a core (a no-op off Linux).
runBehindTheLoop();

let buffer: TickBuffer | undefined;
let learner: PolicyLearner | undefined;
const send = (message: FromPolicyWorker) => port.postMessage(message);

port.on('message', (message: ToPolicyWorker) => {
  void handle(message).catch((error: unknown) => send({ type: 'failed', id: message.type === 'round' ? message.id : undefined, message: (error as Error).message }));
});

async function handle(message: ToPolicyWorker): Promise<void> {
  switch (message.type) {
    case 'init': {
      const backend = await loadLearnerBackend();
      buffer = new TickBuffer(message.capacityTicks, message.embeddingSize);
      learner = new PolicyLearner(buffer, message.learner);
      send({ type: 'ready', backend: backend.backend });
      return;
    }
    case 'ticks':
      if (buffer === undefined) throw new Error('ticks before init');
      for (const tick of message.ticks) buffer.add(tick);
      return;
    case 'restore':
      if (learner === undefined) throw new Error('a restore before init');
      learner.restore(message.snapshot, message.reward);
      return;
    case 'round': {
      if (learner === undefined) throw new Error('a round before init');
      const report = learner.train(message.steps, message.signals);
      if (report.actorSteps === 0) {
        send({ type: 'round-done', id: message.id, candidate: undefined, reason: report.operatorTicks === 0 && learner.featureNorm !== undefined ? 'nothing to learn from yet' : 'too few ticks yet' });
        return;
      }
      const snapshot = learner.publish(message.version);
      send({ type: 'round-done', id: message.id, candidate: { snapshot, reward: learner.rewardWeights(), operatorTicks: report.operatorTicks }, reason: undefined });
      return;
    }
  }
}
