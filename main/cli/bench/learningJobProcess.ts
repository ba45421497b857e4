// The body of a learning bench job's process (learningJobs.ts): it takes one order from its parent, runs
// the product for it — an evaluation, or a training stream with an evaluation after each budget — and
// reports each figure as it has it. It opens its own cores and logger, and closes them before it exits;
// a parent that goes away or stops it (SIGTERM) stops it too, its stream's core closed and its temporary
// folder removed.
import { createLogger } from '../../core/runtime/logger.ts';
import { trainingArenaSeeds } from '../../sim/arenaSeeds.ts';
import { SIM_TASKS } from '../../sim/tasks/taskNames.ts';
import { DEFAULT_LEARNING_BENCH_OPTIONS, startArgsFor, type LearningBenchSettings } from './learningBench.ts';
import { evaluate, type EvaluationOutcome, type EvaluationSet } from './learningEvaluation.ts';
import type { JobOrder, JobReport, LearningJob } from './learningJobs.ts';
import { TrainingStream } from './learningStream.ts';

/** The cores' own logs, warnings and worse (each stream and evaluation opens a core, which says a lot at info). */
const log = createLogger('bench-learning');
log.level = process.env.REINS_LOG_LEVEL ?? 'warn';

let closeOpenStream: (() => Promise<void>) | undefined;

function report(message: JobReport): Promise<void> {
  return new Promise((resolve, reject) => process.send!(message, undefined, {}, (error) => (error ? reject(error) : resolve())));
}

async function stop(): Promise<never> {
  await closeOpenStream?.().catch(() => undefined);
  process.exit(1);
}

async function run(job: LearningJob, options: LearningBenchSettings): Promise<void> {
  const evaluationArgs = startArgsFor(options, undefined);
  const setOf = (task: (typeof SIM_TASKS)[number], episodesPerArena = options.evaluationEpisodesPerArena): EvaluationSet => ({
    task,
    arenas: options.evaluationArenas,
    episodesPerArena,
  });
  if (job.kind !== 'stream') {
    const startedMs = performance.now();
    const driver =
      job.kind === 'alone' ? ({ kind: 'operator', operator: job.operator, seed: job.seed } as const) : ({ kind: 'policy', policy: undefined } as const);
    const evaluation = await evaluate(setOf(job.task), driver, evaluationArgs, log);
    await report({ type: 'evaluated', evaluation, wallMinutes: (performance.now() - startedMs) / 60_000 });
    return;
  }
  const stream = await TrainingStream.open({
    method: job.method,
    task: job.task,
    operator: job.operator,
    seed: job.seed,
    trainingArenas: trainingArenaSeeds(job.seed, options.trainingArenasPerSeed),
    episodesPerArena: options.episodesPerArena,
    demoSimMinutes: options.demoSimMinutes,
    args: (folder) => startArgsFor(options, folder),
    learner: options.learner,
    log,
  });
  closeOpenStream = () => stream.close();
  try {
    let last: { version: number; evaluation: EvaluationOutcome } | undefined;
    for (const [index, simMinutes] of options.budgetsSimMinutes.entries()) {
      // `--sequence`: budget i teaches the sequence's i-th task (the last goes on to the end).
      const sequence = job.sequence;
      if (sequence) stream.switchTask(sequence[Math.min(index, sequence.length - 1)]!);
      await stream.runUntil(simMinutes);
      const byTask = new Map<string, EvaluationOutcome>();
      if (sequence) {
        // Every task taught so far, each on its own set: is what was learned first still done as well?
        for (const task of sequence.slice(0, Math.min(index, sequence.length - 1) + 1)) {
          const evaluation = await evaluate(setOf(task), { kind: 'policy', policy: stream.drivingPolicy().policy }, evaluationArgs, log);
          byTask.set(task, evaluation);
          await report({ type: 'sequence-evaluation', task, simMinutes, evaluation });
        }
      }
      const driving = stream.drivingPolicy();
      // An unchanged driving version is not evaluated twice (the evaluation is deterministic).
      const evaluation =
        byTask.get(job.task) ??
        (last?.version === driving.version
          ? last.evaluation
          : await evaluate(setOf(job.task), { kind: 'policy', policy: driving.policy }, evaluationArgs, log));
      last = { version: driving.version, evaluation };
      const counts = stream.feedback();
      const takeovers = stream.takeovers();
      await report({
        type: 'budget',
        budget: {
          simMinutes,
          wallMinutes: stream.wallMs / 60_000,
          evaluation,
          interventions: counts.interventions,
          answers: counts.answers,
          ratings: counts.ratings,
          questionsAsked: stream.counts.questionsAsked,
          answersSkipped: stream.counts.answersSkipped,
          takeovers: takeovers.takeovers,
          takeoversFollowedByCollision: takeovers.followedByCollision,
          trainingCollisions: stream.collisionsSoFar(),
          trainingEpisodes: stream.counts.episodes,
          learnerSteps: stream.learnerSteps(),
          policyVersion: `v${driving.version} (${driving.name})`,
          candidates: stream.candidates().offered,
          candidatesRefused: stream.candidates().refused,
          refused: stream.counts.refused,
          ...(stream.counts.lastRefusal ? { lastRefusal: stream.counts.lastRefusal } : {}),
        },
      });
    }
    if (job.method === 'reins' && job.task === 'reach' && !job.sequence) {
      // What a `reach` policy makes of the harder tasks: it should not already solve them. The default
      // set's episodes answer that (a larger set is for the paired tests, and costs minutes here).
      const episodesPerArena = Math.min(options.evaluationEpisodesPerArena, DEFAULT_LEARNING_BENCH_OPTIONS.evaluationEpisodesPerArena);
      for (const other of SIM_TASKS) {
        if (other === 'reach') continue;
        const evaluation = await evaluate(setOf(other, episodesPerArena), { kind: 'policy', policy: stream.drivingPolicy().policy }, evaluationArgs, log);
        await report({ type: 'cross-task', to: other, simMinutes: options.budgetsSimMinutes.at(-1)!, successRate: evaluation.successRate });
      }
    }
  } finally {
    closeOpenStream = undefined;
    await stream.close();
  }
}

process.once('SIGTERM', () => void stop());
// Ctrl-C at the terminal reaches the whole process group: the job closes its core as on SIGTERM.
process.once('SIGINT', () => void stop());
process.once('disconnect', () => void stop());
process.once('message', (order: JobOrder<LearningBenchSettings>) => {
  run(order.job, order.options).then(
    async () => {
      await report({ type: 'done' });
      // Every core is closed; a socket half-closing or a native thread pool must not keep the process.
      process.exit(0);
    },
    async (error: unknown) => {
      await report({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }).catch(() => undefined);
      process.exit(1);
    },
  );
});
