// The learning bench's units of work (issue 26), each run in a process of its own so that the matrix
// uses every core of the machine: an operator alone on a task's evaluation set, `none` on it, or one
// training stream with its evaluations. A stream is deterministic on its own (one simulated clock, its
// own seed), so running two at once changes only their wall time; a process each keeps them apart (each
// core its own main thread, learner workers, encoders and TF.js engine). The parent pairs each
// evaluation with the operator's and writes the figures; the children only run the product and report.
import { fork, type ChildProcess } from 'node:child_process';
import type { SimOperatorName } from '../../sim/operators/createOperator.ts';
import type { SimTaskName } from '../../sim/tasks/taskNames.ts';
import type { EvaluationOutcome } from './learningEvaluation.ts';
import type { StreamMethod } from './learningStream.ts';

const JOB_BOOTSTRAP = new URL('./learningJobBootstrap.mjs', import.meta.url);

export type LearningJob =
  | { kind: 'alone'; task: SimTaskName; operator: SimOperatorName; seed: number }
  | { kind: 'none'; task: SimTaskName }
  | { kind: 'stream'; method: StreamMethod; task: SimTaskName; operator: SimOperatorName; seed: number; sequence?: readonly SimTaskName[] };

/** A stream's figures at the end of a budget, as the core counted them (the cockpit's counts) and as the ground truth has them. */
export interface StreamFigures {
  simMinutes: number;
  wallMinutes: number;
  interventions: number;
  answers: number;
  ratings: number;
  /** Questions the core asked, and those the operator skipped. */
  questionsAsked: number;
  answersSkipped: number;
  /** The operator's takeovers, and those a collision followed. */
  takeovers: number;
  takeoversFollowedByCollision: number;
  /** Collisions on the training stream (ground truth). */
  trainingCollisions: number;
  trainingEpisodes: number;
  learnerSteps: { policy: number; worldModel: number };
  policyVersion: string;
  /** Candidate versions so far, and those the promotion gate refused or blocked (with the off-policy critics on). */
  candidates?: number;
  candidatesRefused?: number;
  /** Requests the cockpit refused (none expected), with the last. */
  refused: number;
  lastRefusal?: string;
}

/** What a stream reports after each budget: its figures, and the evaluation's episodes (paired by the parent). */
export interface StreamBudget extends StreamFigures {
  evaluation: EvaluationOutcome;
}

export type JobReport =
  | { type: 'evaluated'; evaluation: EvaluationOutcome; wallMinutes: number }
  | { type: 'budget'; budget: StreamBudget }
  | { type: 'cross-task'; to: SimTaskName; simMinutes: number; successRate: number }
  /** `--sequence`: the driving version on one task of the sequence taught so far, after a budget. */
  | { type: 'sequence-evaluation'; task: SimTaskName; simMinutes: number; evaluation: EvaluationOutcome }
  | { type: 'done' }
  | { type: 'failed'; message: string };

/** What the parent sends a job's process: the job, and the bench's options (plain data). */
export interface JobOrder<Options> {
  job: LearningJob;
  options: Options;
}

export function describeJob(job: LearningJob): string {
  switch (job.kind) {
    case 'alone':
      return `the ${job.operator} operator alone on ${job.task}`;
    case 'none':
      return `none on ${job.task}`;
    case 'stream':
      return `the ${job.method} stream on ${job.sequence ? job.sequence.join(' then ') : job.task} with the ${job.operator} operator, seed ${job.seed}`;
  }
}

/** Live job processes, stopped if the bench itself is stopped or fails. */
const running = new Set<ChildProcess>();

/** Runs `job` in a process of its own, telling `onReport` each figure it sends; resolves when the job is done and its process has exited. */
export function runJobProcess<Options>(job: LearningJob, options: Options, onReport: (report: JobReport) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    // No inherited flags (vitest's or an inspector's); the bootstrap registers tsx itself.
    const child = fork(JOB_BOOTSTRAP, [], { execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    running.add(child);
    let done = false;
    let failure: string | undefined;
    child.on('message', (report: JobReport) => {
      if (report.type === 'done') done = true;
      else if (report.type === 'failed') failure = report.message;
      else {
        try {
          onReport(report);
        } catch (error) {
          failure = `its report could not be taken: ${error instanceof Error ? error.message : String(error)}`;
          child.kill('SIGTERM');
        }
      }
    });
    child.once('error', (error) => {
      failure ??= error.message;
    });
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (done && code === 0) resolve();
      else
        reject(
          new Error(`${describeJob(job)} failed: ${failure ?? (signal ? `its process was stopped (${signal})` : `its process exited with code ${code}`)}`),
        );
    });
    child.send({ job, options } satisfies JobOrder<Options>);
  });
}

export function liveJobProcesses(): number {
  return running.size;
}

/** Stops every job process still running (the bench failed or was stopped); they close their cores on SIGTERM. */
export function stopJobProcesses(): void {
  for (const child of running) child.kill('SIGTERM');
}
