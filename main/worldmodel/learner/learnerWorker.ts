// The world-model learner's worker thread (DESIGN §2–3): it trains beside the control loop, never in
// its way. Started by learner.ts through learnerWorkerBootstrap.mjs, which makes TypeScript loadable.
import { parentPort } from 'node:worker_threads';
import { runBehindTheLoop } from '../../core/runtime/backgroundPriority.ts';
import { LearnerLoop } from './learnerLoop.ts';
import { describeInvalid, toLearnerSchema } from './learnerProtocol.ts';

const port = parentPort;
if (port === null) throw new Error('learnerWorker.ts runs only as a worker thread; start it with Learner.start');
// Training gives way to the control loop's thread whenever both want a core (a no-op off Linux).
runBehindTheLoop();

const loop = new LearnerLoop((message, transfer) => port.postMessage(message, transfer ?? []));

port.on('message', (raw: unknown) => {
  const parsed = toLearnerSchema.safeParse(raw);
  if (!parsed.success)
    return port.postMessage({ type: 'error', message: describeInvalid('learner: a message to the worker is invalid', parsed.error), fatal: false });
  loop.handle(parsed.data);
});
