// A core under the soak's load, for benches that measure something beside a running robot (issue 31):
// `reins soak` as a child process — the whole core as `reins start` composes it, the simulated robot in
// a process of its own at full sensor rates, the world-model and policy learners, recording, memory and
// its maintenance, the scripted operator taking over and handing back — run in real time for a fixed
// number of minutes, then left to finish and clean up after itself. Its CPU time is read from
// /proc/PID/stat (Linux): the core's process with every thread in it, not the sim's.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const REINS = fileURLToPath(new URL('../reins.mjs', import.meta.url));
/** Until the soak says it is driving: encoders, the sim process, the learners' threads, the memory. */
const START_TIMEOUT_MS = 180_000;
/** Linux's USER_HZ, what /proc/PID/stat counts CPU time in (100 on every architecture Node supports there). */
const CLOCK_TICKS_PER_SEC = 100;
const WARN_LEVEL = 40;

export interface SoakLoadOptions {
  /** How long the soak drives (it then runs its stop checks and shuts down). */
  minutes: number;
  /** The encoder manifest the core loads; undefined for the default models. */
  encoders: string | undefined;
}

export interface SoakLoad {
  pid: number;
  /** CPU seconds the core's process has used so far (user + system, every thread); undefined off Linux. */
  cpuSecs(): number | undefined;
  /** Resolves at the soak's next log line with this message (`soak window`: a minute has passed). */
  logged(msg: string): Promise<void>;
  /** Resolves with the soak's exit code once it has finished and removed its folder. */
  finished(): Promise<number | null>;
  /** Ends it at once (SIGTERM): for a bench that fails part way; its folder under the temp dir may stay. */
  kill(): void;
}

/** Starts the soak and resolves once it is driving; its warnings and errors go to this process's stderr. */
export function startSoakLoad(options: SoakLoadOptions): Promise<SoakLoad> {
  if (!(options.minutes > 0)) throw new RangeError(`the soak under the bench runs for a positive number of minutes, got ${options.minutes}`);
  const args = [REINS, 'soak', '--minutes', String(options.minutes), ...(options.encoders === undefined ? [] : ['--encoders', options.encoders])];
  const child = spawn(process.execPath, args, { env: { ...process.env, REINS_LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waiters: Array<{ msg: string; resolve: () => void }> = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    const entry = parseLogLine(line);
    if (entry === undefined || entry.level >= WARN_LEVEL) process.stderr.write(`soak: ${line}\n`);
    for (const waiter of waiters.filter((waiting) => waiting.msg === entry?.msg)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const logged = (msg: string, timeoutMs: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`reins soak did not log "${msg}" within ${timeoutMs / 1000} s`)), timeoutMs);
      const onExit = (code: number | null) => reject(new Error(`reins soak exited with ${code} before it logged "${msg}" (see its log above)`));
      child.once('exit', onExit);
      waiters.push({
        msg,
        resolve: () => {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve();
        },
      });
    });
  const load: SoakLoad = {
    pid: child.pid!,
    cpuSecs: () => processCpuSecs(child),
    logged: (msg) => logged(msg, options.minutes * 60_000 + START_TIMEOUT_MS),
    finished: () => exited,
    kill: () => child.kill('SIGTERM'),
  };
  return logged('soaking', START_TIMEOUT_MS).then(
    () => load,
    (error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    },
  );
}

function parseLogLine(line: string): { level: number; msg: string | undefined } | undefined {
  try {
    const entry = JSON.parse(line) as { level?: unknown; msg?: unknown };
    return typeof entry.level === 'number' ? { level: entry.level, msg: typeof entry.msg === 'string' ? entry.msg : undefined } : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of a live process, from /proc/PID/stat; undefined where there is no /proc or it has ended. */
export function processCpuSecs(child: Pick<ChildProcess, 'pid'>): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields that follow start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of the whole line (utime, stime) are the 12th and 13th after the name.
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  if (!Number.isFinite(userTicks) || !Number.isFinite(systemTicks)) return undefined;
  return (userTicks + systemTicks) / CLOCK_TICKS_PER_SEC;
}
