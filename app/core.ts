// Runs the core (a plain Node program) as an Electron utility process, learns the UI address from
// the one line it prints on stdout, keeps the tail of its stderr for the operator, and stops it.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';

export const CORE_SERVICE_NAME = 'Reins core';
export const CORE_START_TIMEOUT_MS = 60_000;
export const CORE_STOP_TIMEOUT_MS = 5_000;

const UI_LINE_PREFIX = 'Reins UI: ';
const STDERR_TAIL_LINES = 20;
const MAX_LINE_CHARS = 8_192;
/** After `exit`, how long to wait for the pipes to deliver what the core wrote last. */
const PIPE_DRAIN_MS = 500;
const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
/** What the core accepts: URL-safe without escaping, so it reads the same in argv and in the UI address. */
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,256}$/;

export interface CoreLaunch {
  /** Bearer token the UI and API share; generated unless the operator passed `--token`. */
  token: string;
  robot?: string | undefined;
  /** The encoder manifest (`--encoders PATH`), when not the default models. */
  encoders?: string | undefined;
  /** A recorded log to review (`--review FILE.mcap`) instead of driving a robot. */
  review?: string | undefined;
  /** The robot's model for the 3D view (`--urdf FILE`). */
  urdf?: string | undefined;
  /** Arguments for a `.xacro` model (`--xacro-arg NAME:=VALUE`, each as given). */
  xacroArgs?: string[] | undefined;
  /** Where a xacro's `$(find PKG)` looks (`--ros-package NAME=DIR`, each as given). */
  rosPackages?: string[] | undefined;
}

/**
 * Reads what the desktop app forwards to the core from its own argv: the arguments after `--`
 * (`electron . -- --robot X`), or all of them when there is no `--` (a packaged `Reins --robot X`).
 * Only `--robot`, `--encoders`, `--review`, `--urdf`, `--xacro-arg` and `--ros-package` (each as often as given) are
 * forwarded; `--token` is used instead of a generated one.
 */
export function coreLaunchFromArgv(argv: readonly string[], newToken: () => string = generateToken): CoreLaunch {
  const separator = argv.indexOf('--');
  const args = separator >= 0 ? argv.slice(separator + 1) : argv.slice(1);
  const { values } = parseArgs({
    args: [...args],
    options: {
      robot: { type: 'string' },
      token: { type: 'string' },
      encoders: { type: 'string' },
      review: { type: 'string' },
      urdf: { type: 'string' },
      'xacro-arg': { type: 'string', multiple: true },
      'ros-package': { type: 'string', multiple: true },
    },
    strict: false,
    allowPositionals: true,
  });
  const robot = typeof values.robot === 'string' ? values.robot : undefined;
  const encoders = typeof values.encoders === 'string' ? { encoders: values.encoders } : {};
  if (typeof values.review === 'string') Object.assign(encoders, { review: values.review });
  if (typeof values.urdf === 'string') Object.assign(encoders, { urdf: values.urdf });
  const xacroArgs = repeated(values['xacro-arg'], '--xacro-arg', 'NAME:=VALUE');
  if (xacroArgs.length > 0) Object.assign(encoders, { xacroArgs });
  const rosPackages = repeated(values['ros-package'], '--ros-package', 'NAME=DIR');
  if (rosPackages.length > 0) Object.assign(encoders, { rosPackages });
  if (values.token === undefined) return { token: newToken(), robot, ...encoders };
  if (typeof values.token !== 'string' || !TOKEN_PATTERN.test(values.token)) {
    throw new Error('--token needs 16 to 256 characters of A-Z a-z 0-9 . _ ~ -');
  }
  return { token: values.token, robot, ...encoders };
}

/** A repeatable option's values; one given without a value is refused, naming the form it takes. */
function repeated(given: ReadonlyArray<string | boolean> | string | boolean | undefined, option: string, form: string): string[] {
  const values = given === undefined ? [] : Array.isArray(given) ? given : [given];
  return values.map((value) => {
    if (typeof value !== 'string') throw new Error(`${option} needs a value: ${option} ${form}`);
    return value;
  });
}

export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The core's command line. Every value goes as `--name=value`, one argument: a base64url token starts
 * with `-` one time in 64, and as a separate argument the core's parser would read it as an option.
 */
export function coreArgs(launch: CoreLaunch): string[] {
  const robot = launch.robot === undefined ? [] : [`--robot=${launch.robot}`];
  const encoders = launch.encoders === undefined ? [] : [`--encoders=${launch.encoders}`];
  const review = launch.review === undefined ? [] : [`--review=${launch.review}`];
  const urdf = launch.urdf === undefined ? [] : [`--urdf=${launch.urdf}`];
  const xacroArgs = (launch.xacroArgs ?? []).map((value) => `--xacro-arg=${value}`);
  const rosPackages = (launch.rosPackages ?? []).map((value) => `--ros-package=${value}`);
  return ['start', '--headless', '--port=0', `--token=${launch.token}`, ...robot, ...encoders, ...review, ...urdf, ...xacroArgs, ...rosPackages];
}

/**
 * The UI address in one line of the core's stdout; `undefined` when the line is something else.
 * Throws when the line names an address the window must not load (not loopback, not our token).
 */
export function uiAddressFromLine(line: string, token: string): URL | undefined {
  if (!line.startsWith(UI_LINE_PREFIX)) return undefined;
  const text = line.slice(UI_LINE_PREFIX.length).trim();
  let address: URL;
  try {
    address = new URL(text);
  } catch {
    throw new Error(`The core printed an unreadable UI address: ${text}`);
  }
  if (address.protocol !== 'http:' || !LOOPBACK_HOSTNAMES.has(address.hostname)) {
    throw new Error(`The core printed a UI address that is not on this machine: ${address.origin}`);
  }
  if (new URLSearchParams(address.hash.slice(1)).get('token') !== token) {
    throw new Error('The core printed a UI address with a token other than the one it was given');
  }
  return address;
}

/** The pieces of Electron's `UtilityProcess` used here. */
export interface CoreChild {
  readonly pid: number | undefined;
  readonly stdout: NodeJS.ReadableStream | null;
  readonly stderr: NodeJS.ReadableStream | null;
  once(event: 'exit', listener: (code: number) => void): unknown;
  kill(): boolean;
}

export interface CoreForkOptions {
  stdio: 'pipe';
  serviceName: string;
}

/** `utilityProcess.fork`, or a fake. */
export type ForkCore = (modulePath: string, args: string[], options: CoreForkOptions) => CoreChild;

export interface CoreExit {
  code: number;
  /** The core's last stderr lines: what the operator needs to see why it stopped. */
  stderrTail: string;
}

export class CoreStartError extends Error {
  constructor(
    message: string,
    readonly stderrTail: string,
    readonly exitCode?: number,
  ) {
    super(message);
    this.name = 'CoreStartError';
  }
}

export interface CoreProcessOptions {
  /** Absolute path of `main/cli/reins.mjs`. */
  cliPath: string;
  launch: CoreLaunch;
  startTimeoutMs?: number;
  /** Receives the core's stderr as it arrives (the app echoes it to its own stderr). */
  onStderr?: (text: string) => void;
  /** Last resort when the core ignores SIGTERM; `process.kill` unless a test replaces it. */
  killProcess?: (pid: number, signal: NodeJS.Signals) => void;
}

export class CoreProcess {
  /** The UI address once the core serves it; rejects with a `CoreStartError` otherwise. */
  readonly ready: Promise<URL>;
  readonly #child: CoreChild;
  readonly #exited: Promise<CoreExit>;
  readonly #killProcess: (pid: number, signal: NodeJS.Signals) => void;
  readonly #stderrTail = new LineTail(STDERR_TAIL_LINES);
  #hasExited = false;
  #stopRequested = false;

  static spawn(fork: ForkCore, options: CoreProcessOptions): CoreProcess {
    const child = fork(options.cliPath, coreArgs(options.launch), { stdio: 'pipe', serviceName: CORE_SERVICE_NAME });
    return new CoreProcess(child, options);
  }

  private constructor(child: CoreChild, options: CoreProcessOptions) {
    const { stdout, stderr } = child;
    if (!stdout || !stderr) throw new Error('The core was started without piped stdout and stderr');
    this.#child = child;
    this.#killProcess = options.killProcess ?? ((pid, signal) => process.kill(pid, signal));

    stderr.setEncoding('utf8');
    stderr.on('data', (chunk: string) => {
      this.#stderrTail.push(chunk);
      options.onStderr?.(chunk);
    });
    const drained = Promise.all([ended(stdout), ended(stderr)]);
    this.#exited = new Promise((resolve) => {
      child.once('exit', (code) => {
        this.#hasExited = true;
        void withTimeout(drained, PIPE_DRAIN_MS).then(() => resolve({ code, stderrTail: this.#stderrTail.text() }));
      });
    });
    this.ready = this.#readUiAddress(stdout, options);
  }

  /** True from the spawn until the core's process has exited. */
  get running(): boolean {
    return !this.#hasExited;
  }

  /** Calls `listener` once if the core exits without having been asked to stop. */
  onUnexpectedExit(listener: (exit: CoreExit) => void): void {
    void this.#exited.then((exit) => {
      if (!this.#stopRequested) listener(exit);
    });
  }

  /** Asks the core to stop (SIGTERM) and waits for it; kills it if it has not exited in time. */
  async stop(timeoutMs: number = CORE_STOP_TIMEOUT_MS): Promise<void> {
    this.#stopRequested = true;
    if (this.#hasExited) return;
    this.#child.kill();
    const stopped = await withTimeout(this.#exited, timeoutMs);
    const pid = this.#child.pid;
    if (stopped || pid === undefined) return;
    try {
      this.#killProcess(pid, 'SIGKILL');
    } catch (error) {
      // ESRCH: it exited between the timeout and the kill, which is what we wanted.
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }

  #readUiAddress(stdout: NodeJS.ReadableStream, options: CoreProcessOptions): Promise<URL> {
    const timeoutMs = options.startTimeoutMs ?? CORE_START_TIMEOUT_MS;
    return new Promise<URL>((resolve, reject) => {
      const fail = (message: string, exitCode?: number): void => {
        clearTimeout(timer);
        reject(new CoreStartError(message, this.#stderrTail.text(), exitCode));
      };
      const timer = setTimeout(() => {
        fail(`The core did not report its UI address within ${timeoutMs / 1000} s`);
        void this.stop();
      }, timeoutMs);

      // Keep reading after the address arrives so a chatty core never blocks on a full pipe.
      const lines = new LineSplitter();
      stdout.setEncoding('utf8');
      stdout.on('data', (chunk: string) => {
        for (const line of lines.push(chunk)) {
          try {
            const address = uiAddressFromLine(line, options.launch.token);
            if (address === undefined) continue;
            clearTimeout(timer);
            resolve(address);
          } catch (error) {
            fail((error as Error).message);
            void this.stop();
          }
        }
      });
      void this.#exited.then((exit) => fail(`The core exited (code ${exit.code}) before serving the UI`, exit.code));
    });
  }
}

/** Splits a text stream into lines, however the chunks fall. */
export class LineSplitter {
  #partial = '';

  /** The lines completed by `chunk`, without their line endings. */
  push(chunk: string): string[] {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = (parts.pop() ?? '').slice(-MAX_LINE_CHARS);
    return parts.map((line) => line.replace(/\r$/, ''));
  }

  /** The unfinished last line, if any. */
  get partial(): string {
    return this.#partial;
  }
}

/** The last `maxLines` lines of a text stream, including an unfinished last line. */
export class LineTail {
  readonly #lines: string[] = [];
  readonly #splitter = new LineSplitter();

  constructor(private readonly maxLines: number) {}

  push(chunk: string): void {
    for (const line of this.#splitter.push(chunk)) {
      this.#lines.push(line.slice(0, MAX_LINE_CHARS));
      if (this.#lines.length > this.maxLines) this.#lines.shift();
    }
  }

  text(): string {
    const partial = this.#splitter.partial;
    const lines = partial === '' ? this.#lines : [...this.#lines, partial].slice(-this.maxLines);
    return lines.join('\n');
  }
}

function ended(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
    stream.once('error', () => resolve());
  });
}

/** Whether `promise` settled within `timeoutMs`. */
async function withTimeout(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
