// What a running core does when its resident memory nears the budget (issue 31): the learners pause
// (they are what grows and what can wait) and the caches that can be given back are (the memory's
// LanceDB connection, the C heap's free pages); the loop, the recording and the memory writer go on,
// so no tick, command or recorded message is lost. The alert is the budget's own (MemoryBudget.alerts).
// Back under the lower threshold, the learners resume and catch up on what was written meanwhile.
import type { Logger } from 'pino';
import { DEFAULT_MEMORY_BUDGET_MIB, MemoryBudget, memoryBudgetBytes } from '../core/runtime/memoryBudget.ts';
import type { Schedule } from '../core/runtime/schedule.ts';

export interface PausableLearner {
  name: string;
  pause(): void;
  resume(): void;
}

export interface MemoryPressureParts {
  /** `--memory-budget-mib`; undefined for the default (1.5 GiB). */
  budgetMib: number | undefined;
  schedule: Schedule;
  learners: readonly PausableLearner[];
  /** Each cache that can be given back, named for the log; each runs even when another fails. */
  caches: ReadonlyArray<readonly [string, () => unknown]>;
  log: Logger;
}

/** The budget, watched from now on; stop it (`stop()`) before the parts it pauses close. */
export function watchMemoryBudget(parts: MemoryPressureParts): MemoryBudget {
  const { log } = parts;
  const budget = new MemoryBudget({ budgetBytes: memoryBudgetBytes(parts.budgetMib ?? DEFAULT_MEMORY_BUDGET_MIB), schedule: parts.schedule });
  budget.onChange(async (underPressure, rssBytes) => {
    const state = { rssMiB: Math.round(rssBytes / 2 ** 20), budgetMiB: Math.round(budget.options.budgetBytes / 2 ** 20) };
    if (!underPressure) {
      for (const learner of parts.learners) learner.resume();
      log.info(state, 'memory back under its budget: learning resumes');
      return;
    }
    log.warn(state, 'memory near its budget: learning paused, caches shrunk');
    for (const learner of parts.learners) learner.pause();
    for (const [name, shrink] of parts.caches) {
      try {
        await shrink();
      } catch (error) {
        // Recovered from here: the cache stays as it was, and the learners stay paused until memory falls.
        log.warn({ err: error, cache: name }, 'a cache could not be shrunk');
      }
    }
  });
  budget.start();
  return budget;
}
