// Drawn sequences read back whole (vectors included), in step order. A batch is one query of each
// segment: each query pays for every fragment a table has, and the writer leaves one per commit until
// compaction. A sequence may span two segments (an episode goes on across a rollover).
import type { SequenceRef } from './replaySampler.ts';
import { sqlColumn, sqlNumber, sqlString } from './sqlFilter.ts';
import { ticksFromArrow } from './tickRead.ts';
import type { TickRow } from './tickSchema.ts';
import type { TickStore } from './tickStore.ts';

export async function readSequence(store: TickStore, ref: SequenceRef): Promise<TickRow[]> {
  return (await readSequences(store, [ref]))[0]!;
}

/** The sequences in the order asked; throws if any is not whole (rows moved or dropped). */
export async function readSequences(store: TickStore, refs: readonly SequenceRef[]): Promise<TickRow[][]> {
  if (refs.length === 0) return [];
  const where = refs.map((ref) => `(${rangeFilter(ref)})`).join(' OR ');
  const byEpisode = new Map<string, ReturnType<typeof ticksFromArrow>>();
  for (const row of ticksFromArrow(await store.query({ where }))) {
    const rows = byEpisode.get(row.episodeId) ?? [];
    rows.push(row);
    byEpisode.set(row.episodeId, rows);
  }
  for (const rows of byEpisode.values()) rows.sort((a, b) => a.step - b.step);
  return refs.map((ref) => {
    const end = ref.startStep + ref.length;
    // Sequences may overlap, so each takes its own rows from the episode's.
    const rows = (byEpisode.get(ref.episodeId) ?? []).filter((row) => row.step >= ref.startStep && row.step < end);
    if (rows.length !== ref.length) {
      throw new Error(`${store.name}: episode ${ref.episodeId} steps ${ref.startStep}…${end - 1} hold ${rows.length} ticks, not ${ref.length}`);
    }
    return rows.map((row) => ({ ...row, embedding: row.embedding!, latent: row.latent }));
  });
}

function rangeFilter(ref: SequenceRef): string {
  return [
    `${sqlColumn('episodeId')} = ${sqlString(ref.episodeId)}`,
    `${sqlColumn('step')} >= ${sqlNumber(ref.startStep)}`,
    `${sqlColumn('step')} < ${sqlNumber(ref.startStep + ref.length)}`,
  ].join(' AND ');
}
