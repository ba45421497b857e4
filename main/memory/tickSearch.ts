// "Show me moments like this one": the k nearest ticks to an embedding or to a stored tick, within a
// filter. Every segment of the store is searched for its k nearest, at once, and the nearest k of
// those are the answer (each segment's k nearest include its share of the overall k nearest). A
// segment with a vector index is searched through it (approximate, tuned by the store's
// SearchSettings), one without exactly (flat), and every one exactly when asked.
import type { Table as ArrowTable } from 'apache-arrow';
import { sqlColumn, sqlNumber, sqlString } from './sqlFilter.ts';
import { tickFilterSql, type TickFilter } from './tickFilter.ts';
import { MOMENT_COLUMNS, unpackMoment, type MomentFields } from './tickMoment.ts';
import { MOMENT_COLUMN, type ActedBy } from './tickSchema.ts';
import type { TickSegment } from './tickSegments.ts';
import type { TickStore } from './tickStore.ts';
import { EMBEDDING_COLUMN } from './vectorIndex.ts';

export type MomentQuery = { embedding: Float32Array } | { episodeId: string; step: number };

export interface SearchOptions {
  k: number;
  filter: TickFilter;
  /** Skip the index: exact search, e.g. the ground truth a recall figure is measured against. */
  exact: boolean;
}

/**
 * What a search returns of each tick: enough to list it and to find its clip in the MCAP log (read
 * the rest by step). Fetched as one packed column where the segment has it (tickMoment.ts).
 */
export type Moment = MomentFields & {
  /** In the table's distance (squared for l2, as LanceDB reports it). */
  distance: number;
};

export async function nearestMoments(store: TickStore, query: MomentQuery, options: Partial<SearchOptions> = {}): Promise<Moment[]> {
  const k = options.k ?? 10;
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a whole number ≥ 1, got ${k}`);
  let embedding: Float32Array;
  let isQueryTick = (_moment: Moment) => false;
  if ('embedding' in query) {
    embedding = query.embedding;
    checkQueryEmbedding(store, embedding);
  } else {
    embedding = await storedEmbedding(store, tickWhere(query.episodeId, query.step), `${query.episodeId} step ${query.step}`);
    // One more than asked, dropping the query tick here: as a filter it would be checked on every row.
    isQueryTick = (moment) => moment.episodeId === query.episodeId && moment.step === query.step;
  }
  const limit = 'embedding' in query ? k : k + 1;
  const where = tickFilterSql(options.filter ?? {});
  const perSegment = await Promise.all(
    store.segments.map(async (segment) => momentsFromArrow(await segmentSearch(store, segment, embedding, limit, where, options.exact ?? false).toArrow())),
  );
  return perSegment
    .flat()
    .filter((moment) => !isQueryTick(moment))
    .sort((a, b) => a.distance - b.distance)
    .slice(0, k);
}

function segmentSearch(store: TickStore, segment: TickSegment, embedding: Float32Array, limit: number, where: string | undefined, exact: boolean) {
  let search = segment.table
    .vectorSearch(embedding)
    .column(EMBEDDING_COLUMN)
    .distanceType(store.space.distance)
    .select(segment.packedMoments ? [MOMENT_COLUMN, '_distance'] : [...MOMENT_COLUMNS, '_distance'])
    .limit(limit);
  const { minimumNprobes, refineFactor } = store.searchSettings;
  if (exact) search = search.bypassVectorIndex();
  else search = refineFactor === undefined ? search.minimumNprobes(minimumNprobes) : search.minimumNprobes(minimumNprobes).refineFactor(refineFactor);
  return where === undefined ? search : search.where(where);
}

function momentsFromArrow(result: ArrowTable): Moment[] {
  const cell = (name: string, row: number): unknown => result.getChild(name)?.get(row) ?? undefined;
  const packed = result.getChild(MOMENT_COLUMN);
  if (packed !== null) {
    return Array.from({ length: result.numRows }, (_, row) => {
      const text: unknown = packed.get(row);
      if (typeof text !== 'string')
        throw new Error(`a tick found by a search has no packed moment, though its table was made with one (row ${row} of the result)`);
      return { ...unpackMoment(text), distance: Number(cell('_distance', row)) };
    });
  }
  return Array.from({ length: result.numRows }, (_, row) => ({
    episodeId: String(cell('episodeId', row)),
    step: Number(cell('step', row)),
    timeMs: Number(cell('timeMs', row)),
    actedBy: cell('actedBy', row) as ActedBy,
    surpriseNats: cell('surpriseNats', row) as number | undefined,
    mcapFile: cell('mcapFile', row) as string | undefined,
    mcapLogTimeNs: cell('mcapLogTimeNs', row) as bigint | undefined,
    distance: Number(cell('_distance', row)),
  }));
}

function tickWhere(episodeId: string, step: number): string {
  return `${sqlColumn('episodeId')} = ${sqlString(episodeId)} AND ${sqlColumn('step')} = ${sqlNumber(step)}`;
}

async function storedEmbedding(store: TickStore, where: string, described: string): Promise<Float32Array> {
  const found = await store.query({ where, columns: [EMBEDDING_COLUMN] });
  const cell: { toArray(): ArrayLike<number> } | null | undefined = found.getChild(EMBEDDING_COLUMN)?.get(0);
  if (cell === null || cell === undefined) throw new Error(`no tick ${described} in ${store.name}`);
  return Float32Array.from(cell.toArray());
}

function checkQueryEmbedding(store: TickStore, embedding: Float32Array): void {
  if (embedding.length !== store.space.embeddingSize) {
    throw new RangeError(`query embedding has ${embedding.length} values; ${store.name} holds ${store.space.embeddingSize}-float embeddings`);
  }
  const bad = embedding.findIndex((value) => !Number.isFinite(value));
  if (bad >= 0) throw new RangeError(`query embedding holds ${embedding[bad]} at index ${bad}`);
}
