// The one place every fuzz suite takes its seed and run count from. `npm test` runs each suite with
// its base count and a fixed seed, so a failure reproduces; `npm run fuzz` sets FUZZ_SCALE to run
// many times more cases (FUZZ_SEED picks another seed). A failure names the seed and the command
// that replays it. Each case also has a time bound: a parser that hangs on some input fails.
import fc from 'fast-check';

const DEFAULT_SEED = 20_250_611;

function positiveNumber(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name}=${text}: expected a positive number`);
  return value;
}

/** The seed every fuzz suite runs with. */
export const FUZZ_SEED = Math.trunc(positiveNumber('FUZZ_SEED', DEFAULT_SEED));
/** How many times the base run count each suite runs (1 in `npm test`). */
export const FUZZ_SCALE = positiveNumber('FUZZ_SCALE', 1);
/** The longest a single case may take before it counts as a hang. */
export const DEFAULT_MAX_CASE_MS = 2000;

/** A suite's run count: its base count in `npm test`, scaled up under `npm run fuzz`. */
export function fuzzRuns(baseRuns: number): number {
  return Math.max(1, Math.round(baseRuns * FUZZ_SCALE));
}

export interface FuzzOptions {
  /** Cases in `npm test`; FUZZ_SCALE multiplies it. */
  runs: number;
  maxCaseMs?: number;
}

/** fast-check parameters with the shared seed and the scaled run count. */
export function fuzzParameters<Ts>(options: FuzzOptions): fc.Parameters<Ts> {
  return { seed: FUZZ_SEED, numRuns: fuzzRuns(options.runs) };
}

type Arbitraries<Ts extends unknown[]> = { [K in keyof Ts]: fc.Arbitrary<Ts[K]> };

/** Checks a synchronous property on generated cases; a case slower than maxCaseMs fails as a hang. */
export function fuzz<Ts extends [unknown, ...unknown[]]>(arbitraries: Arbitraries<Ts>, predicate: (...args: Ts) => void, options: FuzzOptions): void {
  const maxCaseMs = options.maxCaseMs ?? DEFAULT_MAX_CASE_MS;
  const timed = (...args: Ts): void => {
    const startMs = performance.now();
    predicate(...args);
    const tookMs = performance.now() - startMs;
    if (tookMs > maxCaseMs) throw new Error(`case took ${Math.round(tookMs)} ms, over the ${maxCaseMs} ms bound: a hang or a quadratic path`);
  };
  const property = (fc.property as (...parts: unknown[]) => fc.IPropertyWithHooks<Ts>)(...arbitraries, timed);
  withSeedOnFailure(() => fc.assert(property, fuzzParameters<Ts>(options)));
}

/** Checks an asynchronous property; a case that does not settle within maxCaseMs fails as a hang. */
export async function fuzzAsync<Ts extends [unknown, ...unknown[]]>(arbitraries: Arbitraries<Ts>, predicate: (...args: Ts) => Promise<void>, options: FuzzOptions): Promise<void> {
  const property = (fc.asyncProperty as (...parts: unknown[]) => fc.IAsyncPropertyWithHooks<Ts>)(...arbitraries, predicate);
  try {
    await fc.assert(property, { ...fuzzParameters<Ts>(options), timeout: options.maxCaseMs ?? DEFAULT_MAX_CASE_MS });
  } catch (error) {
    throw seeded(error);
  }
}

/** Samples generated values with the shared seed (for suites that feed a real device rather than assert). */
export function fuzzSample<T>(arbitrary: fc.Arbitrary<T>, baseRuns: number): T[] {
  return fc.sample(arbitrary, { seed: FUZZ_SEED, numRuns: fuzzRuns(baseRuns) });
}

function withSeedOnFailure(check: () => void): void {
  try {
    check();
  } catch (error) {
    throw seeded(error);
  }
}

function seeded(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const wrapped = new Error(`fuzz failure with seed ${FUZZ_SEED} (replay: FUZZ_SEED=${FUZZ_SEED} FUZZ_SCALE=${FUZZ_SCALE} npx vitest run FILE)\n${message}`, { cause: error });
  console.error(`[fuzz] failed with seed ${FUZZ_SEED}, scale ${FUZZ_SCALE}`);
  return wrapped;
}
