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
/** The real clock, taken before any test fakes timers (vitest's fake timers replace performance.now). */
const realNowMs = performance.now.bind(performance);
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
    const startMs = realNowMs();
    predicate(...args);
    const tookMs = realNowMs() - startMs;
    if (tookMs > maxCaseMs) throw new Error(`case took ${Math.round(tookMs)} ms, over the ${maxCaseMs} ms bound: a hang or a quadratic path`);
  };
  const property = (fc.property as (...parts: unknown[]) => fc.IPropertyWithHooks<Ts>)(...arbitraries, timed);
  withSeedOnFailure(() => fc.assert(property, fuzzParameters<Ts>(options)));
}

/** Checks an asynchronous property; a case that does not settle within maxCaseMs fails as a hang. */
export async function fuzzAsync<Ts extends [unknown, ...unknown[]]>(
  arbitraries: Arbitraries<Ts>,
  predicate: (...args: Ts) => Promise<void>,
  options: FuzzOptions,
): Promise<void> {
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
  const wrapped = new Error(`fuzz failure with seed ${FUZZ_SEED} (replay: FUZZ_SEED=${FUZZ_SEED} FUZZ_SCALE=${FUZZ_SCALE} npx vitest run FILE)\n${message}`, {
    cause: error,
  });
  console.error(`[fuzz] failed with seed ${FUZZ_SEED}, scale ${FUZZ_SCALE}`);
  return wrapped;
}

type JsonPath = readonly (string | number)[];

/** Every path into a JSON document (the root included), for mutating it field by field. */
export function jsonPaths(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const paths: JsonPath[] = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...jsonPaths(item, [...prefix, index])));
  else if (typeof value === 'object' && value !== null) for (const [key, item] of Object.entries(value)) paths.push(...jsonPaths(item, [...prefix, key]));
  return paths;
}

/** JSON values that are wrong in the usual ways: other types, edge numbers, empty and long text. */
export const hostileJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 0.5, 1e308, -1e308, 2 ** 53, '', 'x', 'x'.repeat(300), [], {}, [null], { toString: 1 }),
  fc.integer({ min: -3, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 10 }),
  fc.jsonValue({ maxDepth: 2 }),
);

type Mutation = { pathIndex: number; action: 'replace' | 'delete' | 'add'; key: string; value: unknown };

/** A valid JSON document with up to `maxMutations` fields replaced, deleted or added. */
export function mutatedJson(document: unknown, values: fc.Arbitrary<unknown> = hostileJsonValue, maxMutations = 3): fc.Arbitrary<unknown> {
  const paths = jsonPaths(document);
  const mutation: fc.Arbitrary<Mutation> = fc.record({
    pathIndex: fc.nat({ max: paths.length - 1 }),
    action: fc.constantFrom('replace' as const, 'delete' as const, 'add' as const),
    key: fc.string({ maxLength: 6 }),
    value: values,
  });
  return fc.array(mutation, { minLength: 1, maxLength: maxMutations }).map((mutations) => {
    let result: unknown = structuredClone(document);
    for (const { pathIndex, action, key, value } of mutations) result = applyMutation(result, paths[pathIndex]!, action, key, value);
    return result;
  });
}

function applyMutation(document: unknown, path: JsonPath, action: Mutation['action'], key: string, value: unknown): unknown {
  if (path.length === 0) return action === 'replace' ? value : document;
  let parent: unknown = document;
  for (const step of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return document;
    parent = (parent as Record<string | number, unknown>)[step];
  }
  if (typeof parent !== 'object' || parent === null) return document;
  const container = parent as Record<string | number, unknown>;
  const last = path.at(-1)!;
  if (!(last in container)) return document;
  if (action === 'replace') container[last] = value;
  else if (action === 'delete') {
    if (Array.isArray(container) && typeof last === 'number') container.splice(last, 1);
    else delete container[last];
  } else {
    const target = container[last];
    if (Array.isArray(target)) target.push(value);
    else if (typeof target === 'object' && target !== null) (target as Record<string, unknown>)[key] = value;
    else container[last] = value;
  }
  return document;
}
