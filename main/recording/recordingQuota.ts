// A disk quota over the recording folder: the oldest logs go first, never the ones being written.
import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

export interface QuotaResult {
  deletedPaths: string[];
  deletedBytes: number;
  /** What the folder's logs take after the deletions. */
  totalBytes: number;
}

export async function enforceQuota(folder: string, quotaBytes: number, keep: ReadonlySet<string>): Promise<QuotaResult> {
  const names = (await readdir(folder)).filter((name) => name.endsWith('.mcap'));
  const logs = await Promise.all(
    names.map(async (name) => {
      const path = join(folder, name);
      const info = await stat(path);
      return { path, sizeBytes: info.size, modifiedMs: info.mtimeMs };
    }),
  );
  logs.sort((a, b) => a.modifiedMs - b.modifiedMs || a.path.localeCompare(b.path));
  let totalBytes = logs.reduce((sum, log) => sum + log.sizeBytes, 0);
  const result: QuotaResult = { deletedPaths: [], deletedBytes: 0, totalBytes };
  for (const log of logs) {
    if (totalBytes <= quotaBytes) break;
    if (keep.has(log.path)) continue;
    await unlink(log.path);
    totalBytes -= log.sizeBytes;
    result.deletedPaths.push(log.path);
    result.deletedBytes += log.sizeBytes;
  }
  result.totalBytes = totalBytes;
  return result;
}
