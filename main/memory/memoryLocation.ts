// Where the memory lives: a LanceDB URI. A plain path (the default) is a local folder; `s3://…`,
// `gs://…`, `az://…` name object storage a fleet can share (DESIGN §8). A local folder is checked
// before LanceDB touches it, so a file, or a folder of someone else's files, gets a clear error
// instead of Reins writing tables among them.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { MemoryOpenError } from './memoryErrors.ts';

/** The table whose presence marks a folder as a Reins memory. */
export const META_TABLE = 'reins_meta';
/** What LanceDB itself keeps in a database folder (its table manifest, made on connect). */
const LANCEDB_ENTRIES: ReadonlySet<string> = new Set(['__manifest']);

/**
 * Where Reins keeps what it learns and records: `$XDG_DATA_HOME/reins`, else `~/.local/share/reins` (the
 * XDG default; a relative XDG_DATA_HOME is ignored, as the XDG spec says). Memory, recordings and saved
 * model versions live under it.
 */
export function reinsDataFolder(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const dataHome = env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith('/') ? env.XDG_DATA_HOME : join(home, '.local', 'share');
  return join(dataHome, 'reins');
}

/** `$XDG_DATA_HOME/reins/memory`, else `~/.local/share/reins/memory`. */
export function defaultMemoryUri(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(reinsDataFolder(env, home), 'memory');
}

/** A URI with a scheme (`s3://`, `gs://`, `db://`, …) is remote; `file://` and plain paths are local. */
export function localPath(uri: string): string | undefined {
  if (uri.startsWith('file://')) return resolve(decodeURIComponent(uri.slice('file://'.length)));
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(uri)) return undefined;
  // LanceDB reads a relative path without ./ as a remote name: always hand it an absolute one.
  return resolve(uri);
}

/**
 * Makes sure a local memory folder can be used: created if absent, refused if it is a file or holds
 * files of something other than a Reins memory. Returns the absolute path to connect to.
 */
export function prepareLocalFolder(uri: string, path: string): string {
  let isFolder: boolean;
  try {
    isFolder = statSync(path).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw unusable(uri, error);
    try {
      mkdirSync(path, { recursive: true });
    } catch (mkdirError) {
      throw unusable(uri, mkdirError);
    }
    return path;
  }
  if (!isFolder) {
    throw new MemoryOpenError(uri, 'is a file, not a folder', 'Set the memory location to a folder (it is created if missing).');
  }
  const entries = readdirSync(path).filter((entry) => !LANCEDB_ENTRIES.has(entry));
  if (entries.length > 0 && !entries.includes(`${META_TABLE}.lance`)) {
    const shown = entries.slice(0, 3).join(', ') + (entries.length > 3 ? `, … (${entries.length} entries)` : '');
    throw new MemoryOpenError(
      uri,
      `is not a Reins memory: the folder holds ${shown} and no ${META_TABLE} table`,
      'Choose an empty folder, or the folder of an existing Reins memory.',
    );
  }
  return path;
}

function unusable(uri: string, error: unknown): MemoryOpenError {
  return new MemoryOpenError(uri, `cannot be used (${(error as Error).message})`, 'Check that the folder can be created and written by this user.', {
    cause: error,
  });
}
