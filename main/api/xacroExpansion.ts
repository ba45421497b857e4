// A `.xacro` robot model expanded into URDF with xacro-parser, as `xacro FILE` would: includes read
// relative to the file that names them, `$(find PKG)` through rosPackages.ts, `$(arg NAME)` from the
// operator's `--xacro-arg NAME:=VALUE` or the file's own defaults, `$(env NAME)` and `$(optenv NAME
// DEFAULT)` from the environment. xacro-parser works on a DOM; slimdom gives the core one (strict
// XML, so a malformed file is refused with its line). Whatever does not expand is said in words.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseXmlDocument, serializeToWellFormedString } from 'slimdom';
import { XacroParser } from 'xacro-parser';
import { findRosPackage, rosPackagePlaces, type RosPackageLookup } from './rosPackages.ts';

/** The files of one expansion together may hold at most this much (the model's own cap, summed). */
export const MAX_XACRO_BYTES = 8 * 1024 * 1024;

export interface XacroInputs {
  /** Folders of packages `$(find NAME)` names (`--ros-package NAME=DIR`). */
  packages: Readonly<Record<string, string>>;
  /** `--xacro-arg NAME:=VALUE`. */
  args: Readonly<Record<string, string>>;
  /** The environment `$(env)`, `$(optenv)` and the package search read; the process's by default. */
  env?: NodeJS.ProcessEnv;
}

export type XacroExpansion = { ok: true; urdf: string } | { ok: false; problem: string };

/** Whether a file is a xacro by its name (`robot.urdf.xacro`, `robot.xacro`). */
export function isXacroPath(path: string): boolean {
  return /\.xacro$/i.test(path);
}

/** Expands the xacro text of the file at `path` (absolute); its includes are read relative to it. */
export async function expandXacro(text: string, path: string, inputs: XacroInputs): Promise<XacroExpansion> {
  const env = inputs.env ?? process.env;
  const lookup: RosPackageLookup = { named: inputs.packages, nearFile: path, env };
  const includeFailures = new Map<string, string>();
  // xacro-parser wraps what a command throws in its own words; the first of ours is the one to tell.
  let commandProblem: string | undefined;
  const refuse = (problem: string): never => {
    commandProblem ??= problem;
    throw new Error(problem);
  };
  let bytesRead = text.length;
  const parser = new XacroParser();
  parser.workingPath = dirname(path);
  parser.arguments = { ...inputs.args };
  parser.getFileContents = async (included: string): Promise<string> => {
    try {
      const contents = await readFile(included, 'utf8');
      bytesRead += contents.length;
      if (bytesRead > MAX_XACRO_BYTES) throw new Error(`the files together pass the ${MAX_XACRO_BYTES / 1024 / 1024} MiB a model may be`);
      return contents;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      includeFailures.set(included, code === 'ENOENT' ? 'there is no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message);
      throw error;
    }
  };
  // Typed as always answering; undefined hands the command back to xacro-parser (`$(arg)`).
  parser.rospackCommands = ((command: string, ...args: string[]): string | undefined => {
    switch (command) {
      case 'find': {
        const name = args[0] ?? '';
        const folder = findRosPackage(name, lookup);
        if (folder === undefined)
          return refuse(
            `the package ${name} that $(find ${name}) names could not be found (looked in ${rosPackagePlaces(lookup)}): give its folder with --ros-package ${name}=DIR`,
          );
        return folder;
      }
      case 'env': {
        const value = env[args[0] ?? ''];
        if (value === undefined) return refuse(`$(env ${args[0] ?? ''}) names an environment variable that is not set`);
        return value;
      }
      case 'optenv':
        return env[args[0] ?? ''] ?? args.slice(1).join(' ');
      case 'dirname':
        return dirname(path);
      default:
        // `arg` (and anything else) is xacro-parser's own to answer, or to refuse.
        return undefined;
    }
  }) as (command: string, ...args: string[]) => string;
  let document: Document;
  try {
    document = await withXmlParser(() => parser.parse(text));
  } catch (error) {
    return { ok: false, problem: `the xacro ${path} does not expand: ${commandProblem ?? explain(error, includeFailures)}` };
  }
  const urdf = serializeToWellFormedString(document as unknown as Parameters<typeof serializeToWellFormedString>[0]);
  return { ok: true, urdf: `<?xml version="1.0"?>\n${urdf}\n` };
}

/** xacro-parser's error in the operator's words, with the reason an include could not be read. */
function explain(error: unknown, includeFailures: ReadonlyMap<string, string>): string {
  const message = error instanceof Error ? error.message : String(error);
  const include = /^XacroParser: Could not load included file: (.*)$/.exec(message)?.[1];
  if (include !== undefined) return `the included file ${include} cannot be read: ${includeFailures.get(include) ?? 'it did not load'}`;
  const argument = /Undefined substitution argument (\S+)/.exec(message)?.[1];
  if (argument !== undefined) return `the xacro argument ${argument} has no value and no default: give it with --xacro-arg ${argument}:=VALUE`;
  return message
    .replace(/^XacroParser: /, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * xacro-parser reads XML with the page's `DOMParser`; the core has none, so slimdom's parser stands
 * in while an expansion runs (and only then: nothing else in the core sees a global DOMParser).
 */
let expansionsRunning = 0;
async function withXmlParser<T>(run: () => Promise<T>): Promise<T> {
  const scope = globalThis as { DOMParser?: unknown };
  if (expansionsRunning++ === 0) scope.DOMParser = SlimdomParser;
  try {
    return await run();
  } finally {
    if (--expansionsRunning === 0) delete scope.DOMParser;
  }
}

class SlimdomParser {
  parseFromString(text: string): unknown {
    return parseXmlDocument(text);
  }
}
