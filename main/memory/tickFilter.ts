// Which ticks a search or a replay may return. The encoder version is not here: each encoder
// version has its own table, so a search never sees embeddings of another version.
import { sqlAnd, sqlColumn, sqlIn, sqlNumber } from './sqlFilter.ts';
import type { ActedBy } from './tickSchema.ts';

export interface TickFilter {
  /** Only these episodes. */
  episodeIds?: readonly string[];
  /** Never these (e.g. the query's own episode). */
  excludeEpisodeIds?: readonly string[];
  actedBy?: readonly ActedBy[];
  /** Inclusive wall-clock range, ms since the Unix epoch. */
  fromMs?: number;
  toMs?: number;
  /** Only ticks whose surprise (KL, nats) is known and above this. */
  minSurpriseNats?: number;
}

/** The filter as LanceDB SQL; undefined when it lets everything through. */
export function tickFilterSql(filter: TickFilter): string | undefined {
  const clauses: string[] = [];
  if (filter.episodeIds !== undefined) clauses.push(filter.episodeIds.length === 0 ? 'false' : sqlIn('episodeId', filter.episodeIds));
  if (filter.excludeEpisodeIds !== undefined && filter.excludeEpisodeIds.length > 0) clauses.push(`NOT ${sqlIn('episodeId', filter.excludeEpisodeIds)}`);
  if (filter.actedBy !== undefined) clauses.push(filter.actedBy.length === 0 ? 'false' : sqlIn('actedBy', filter.actedBy));
  if (filter.fromMs !== undefined) clauses.push(`${sqlColumn('timeMs')} >= ${sqlNumber(filter.fromMs)}`);
  if (filter.toMs !== undefined) clauses.push(`${sqlColumn('timeMs')} <= ${sqlNumber(filter.toMs)}`);
  if (filter.minSurpriseNats !== undefined) clauses.push(`${sqlColumn('surpriseNats')} > ${sqlNumber(filter.minSurpriseNats)}`);
  return sqlAnd(clauses);
}
