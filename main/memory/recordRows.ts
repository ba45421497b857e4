// Low-rate rows (episodes, corrections, checkpoints) are checked with zod at the edge; a bad one is
// refused with a MemoryRowError naming its first bad field. LanceDB wants null for a missing value.
import type { z } from 'zod';
import { MemoryRowError } from './memoryErrors.ts';

export function parseRecordRow<S extends z.ZodType>(table: string, schema: S, row: unknown): z.infer<S> {
  const parsed = schema.safeParse(row);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new MemoryRowError(table, issue.path.join('.') || '(row)', issue.message);
}

/** A row object for LanceDB: undefined → null, every column of the table present. */
export function withNulls(row: Record<string, unknown>, columns: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column) => [column, row[column] ?? null]));
}

/** A row read back: null → undefined (the repository's convention). */
export function withoutNulls(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? undefined : value]));
}
