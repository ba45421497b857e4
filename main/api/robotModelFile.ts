// The robot's model from a file the operator names (`reins start --urdf FILE`): read once at start,
// a `.xacro` expanded there (xacroExpansion.ts), refused with the file named when it cannot be read,
// does not expand, or is plainly not a URDF.
import { readFile } from 'node:fs/promises';
import { expandXacro, isXacroPath, type XacroInputs } from './xacroExpansion.ts';

/** A model larger than this is refused (URDFs are tens of kB; meshes live in files of their own). */
export const MAX_URDF_BYTES = 8 * 1024 * 1024;

export interface RobotModelFile {
  /** The file as the operator named it, absolute. */
  path: string;
  urdf: string;
}

export type ReadRobotModelFile = { ok: true; file: RobotModelFile } | { ok: false; problem: string };

/** `xacro`: the packages and arguments a `.xacro` file is expanded with (none by default). */
export async function readRobotModelFile(path: string, xacro: XacroInputs = { packages: {}, args: {} }): Promise<ReadRobotModelFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'there is no such file' : code === 'EISDIR' ? 'it is a folder' : (error as Error).message;
    return { ok: false, problem: `the robot model ${path} cannot be read: ${why}` };
  }
  if (bytes.length > MAX_URDF_BYTES)
    return {
      ok: false,
      problem: `the robot model ${path} is ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_URDF_BYTES / 1024 / 1024} MiB a model may be`,
    };
  let urdf = bytes.toString('utf8');
  if (isXacroPath(path)) {
    const expanded = await expandXacro(urdf, path, xacro);
    if (!expanded.ok) return { ok: false, problem: expanded.problem };
    urdf = expanded.urdf;
  }
  const problem = urdfProblem(urdf);
  return problem === undefined ? { ok: true, file: { path, urdf } } : { ok: false, problem: `the robot model ${path} ${problem}` };
}

/** Why a text is plainly not a URDF (the UI's parser says the rest); undefined when it may be one. */
export function urdfProblem(urdf: string): string | undefined {
  if (urdf.trim() === '') return 'is empty';
  if (!/<robot[\s>]/.test(urdf)) return 'is not a URDF: it has no <robot> element';
  return undefined;
}
