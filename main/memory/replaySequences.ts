// A drawn sequence read back whole (vectors included), in step order.
import type { SequenceRef } from './replaySampler.ts';
import { sqlColumn, sqlNumber, sqlString } from './sqlFilter.ts';
import { ticksFromArrow } from './tickRead.ts';
import type { TickRow } from './tickSchema.ts';
import type { TickStore } from './tickStore.ts';

export async function readSequence(store: TickStore, ref: SequenceRef): Promise<TickRow[]> {
  const where = [
    `${sqlColumn('episodeId')} = ${sqlString(ref.episodeId)}`,
    `${sqlColumn('step')} >= ${sqlNumber(ref.startStep)}`,
    `${sqlColumn('step')} < ${sqlNumber(ref.startStep + ref.length)}`,
  ].join(' AND ');
  const rows = ticksFromArrow(await store.table.query().where(where).toArrow()).sort((a, b) => a.step - b.step);
  if (rows.length !== ref.length) {
    throw new Error(`${store.name}: episode ${ref.episodeId} steps ${ref.startStep}…${ref.startStep + ref.length - 1} hold ${rows.length} ticks, not ${ref.length}`);
  }
  return rows.map((row) => ({ ...row, embedding: row.embedding!, latent: row.latent }));
}
