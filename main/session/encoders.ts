// The encoders a session runs, loaded first: a bad manifest stops the start before a robot (or the
// sim's process) is opened, as a StartupError the command prints.
import type { Logger } from 'pino';
import type { Perception } from '../core/perception.ts';
import { DEFAULT_MANIFEST_PATH, loadPerception, type OnnxPerception, type PerceptionOptions } from '../perception/onnxPerception.ts';
import type { StartArgs } from './startArgs.ts';
import { StartupError } from './startupError.ts';

export { DEFAULT_MANIFEST_PATH, type OnnxPerception, type PerceptionOptions };

/** The encoders of a manifest (the default models unless named), as every session and bench loads them. */
export function openEncoders(manifestPath: string = DEFAULT_MANIFEST_PATH, options: Partial<PerceptionOptions> = {}): Promise<OnnxPerception> {
  return loadPerception(manifestPath, options);
}

/** The encoders first: a bad manifest stops the start before a robot (or the sim's process) is opened. */
export async function loadEncoders(args: StartArgs, log: Logger): Promise<Perception> {
  let perception: Perception;
  try {
    perception = await openEncoders(args.encoders ?? DEFAULT_MANIFEST_PATH, args.encoderThreads === undefined ? {} : { intraOpThreads: args.encoderThreads });
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  const status = perception.status();
  log.info(
    {
      version: status.version,
      modalities: Object.fromEntries(status.modalities.map((m) => [m.modality, m.provider ? `${m.state} (${m.provider})` : m.state])),
      intraOpThreads: status.intraOpThreads,
      interOpThreads: status.interOpThreads,
      ...(status.providerNote ? { providerNote: status.providerNote } : {}),
    },
    'encoders loaded',
  );
  for (const alert of perception.alerts()) log.warn({ key: alert.key, hint: alert.hint }, alert.message);
  return perception;
}
