// `reins review FILE` (an MCAP log or a ROS 1 bag): the review core (session/reviewCore.ts) served to the UI until the operator stops it.
import { basename } from 'node:path';
import type { Logger } from 'pino';
import type { RobotModelFile } from '../api/robotModelFile.ts';
import { openReviewCore } from '../session/reviewCore.ts';
import { serveCockpit } from '../session/serveCockpit.ts';
import type { StartArgs } from '../session/startArgs.ts';
import { untilStopSignal } from './stopSignal.ts';

export async function runReview(args: StartArgs, file: string, log: Logger, robotModelFile?: RobotModelFile): Promise<number> {
  const core = await openReviewCore(args, file, log, robotModelFile ? { robotModelFile } : {});
  core.loop.start();
  const server = await serveCockpit(core.cockpit, args, log);
  log.info({ file: basename(file), port: server.port, rescore: core.rescoring !== undefined }, 'reviewing a recorded session');

  const signal = await untilStopSignal();
  log.info({ signal }, 'closing the review');
  return core.shutdown([['the API server', () => server.close()]]);
}
