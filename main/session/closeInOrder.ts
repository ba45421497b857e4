// A session's parts closed one after another, so that one failing to close never keeps the rest open.
import type { Logger } from 'pino';

/** Closes each part in turn; one that fails is logged and the rest still close. Exit status 1 if any failed. */
export async function closeInOrder(parts: ReadonlyArray<readonly [string, () => Promise<unknown>]>, log: Logger): Promise<number> {
  let failures = 0;
  for (const [part, close] of parts) {
    try {
      await close();
    } catch (error) {
      failures++;
      log.error({ err: error }, `could not close ${part} cleanly`);
    }
  }
  return failures === 0 ? 0 : 1;
}
