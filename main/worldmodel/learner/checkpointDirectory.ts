// The learner's checkpoint folder: one file per saved step, `world-model-<encoder version>-<step>.ckpt`,
// newest first by modification time (then step), so after a refused checkpoint the fresh run's files
// come before the refused one. Temporary `.partial-*` files of an interrupted write never match.
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

export interface CheckpointFile {
  path: string;
  step: number;
  modifiedMs: number;
}

/** The encoder version as it can appear in a file name; restore still checks the full version. */
function fileSafe(encoderVersion: string): string {
  return encoderVersion.replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The version a checkpoint of this step is known by, in files, memory rows and the filter. */
export function worldModelVersion(encoderVersion: string, step: number): string {
  return `world-model-${fileSafe(encoderVersion)}-${step}`;
}

export function checkpointPath(dir: string, encoderVersion: string, step: number): string {
  return join(dir, `${worldModelVersion(encoderVersion, step)}.ckpt`);
}

/** This encoder version's checkpoints in `dir`, newest first; none when the folder does not exist. */
export async function listCheckpoints(dir: string, encoderVersion: string): Promise<CheckpointFile[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const prefix = `world-model-${fileSafe(encoderVersion)}-`;
  const files: CheckpointFile[] = [];
  for (const name of names) {
    const match = name.startsWith(prefix) ? /^(\d+)\.ckpt$/.exec(name.slice(prefix.length)) : null;
    if (match === null) continue;
    const path = join(dir, name);
    files.push({ path, step: Number(match[1]), modifiedMs: (await stat(path)).mtimeMs });
  }
  return files.sort((a, b) => b.modifiedMs - a.modifiedMs || b.step - a.step);
}

export async function ensureCheckpointDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** Deletes all but the newest `keep` checkpoints of this encoder version; returns what it deleted. */
export async function pruneCheckpoints(dir: string, encoderVersion: string, keep: number): Promise<string[]> {
  const stale = (await listCheckpoints(dir, encoderVersion)).slice(keep).map((file) => file.path);
  for (const path of stale) await rm(path, { force: true });
  return stale;
}
