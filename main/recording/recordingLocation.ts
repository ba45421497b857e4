// Where session recordings go by default: beside the memory, under the Reins data folder.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { reinsDataFolder } from '../memory/memoryLocation.ts';

/** `$XDG_DATA_HOME/reins/recordings`, else `~/.local/share/reins/recordings`. */
export function defaultRecordingFolder(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  return join(reinsDataFolder(env, home), 'recordings');
}
