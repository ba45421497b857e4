// The ANN index on a ticks segment's embeddings, built in the background once the segment is big
// enough for exact search to be slow (flat search over 1M × 256 floats: ~0.4–0.6 s here; over 100k:
// ~40 ms). The measurements below are of one table of 1M rows, from before ticks were segmented.
//
// Measured with LanceDB 0.31 on 1M embeddings of 256 floats (50k distinct sim ticks plus perturbed
// copies) on this 2-core machine, shared with other work (latencies vary by ±50%); 10 nearest,
// recall against exact search:
//   IVF-FLAT, 1024 partitions: built in 22–38 s; recall 0.92 / 0.96 / 0.98 at 4 / 6 / 10 probes,
//     ~3–5 ms (the default encoders' ticks: 0.99 at 4 probes). The index holds a full copy of the
//     vectors (1 KB a row) and a probe reads ~1 MB of it: right for a local folder.
//   IVF-FLAT, 2048 partitions: 120 s to build, and 8 probes for 0.97: no faster.
//   IVF-PQ, 1024 × 64 sub-vectors: 160–200 s; 10 probes, refine 10: recall 0.97 at ~4.9 ms. With 32
//     sub-vectors (~130 s) recall stays under 0.95 even with refine 20: a perturbed copy sits closer
//     to its twins than PQ's error. 64 bytes a row: the choice where probes read object storage.
//   IVF-HNSW-SQ, 256 partitions (169-float embeddings, LanceDB 0.39): 330 s to build, recall 0.58.
import { Index, type Table } from '@lancedb/lancedb';
import type { VectorDistance } from './tickSchema.ts';

export const EMBEDDING_COLUMN = 'embedding';
/** Where a table records how many rows its vector index was trained on (embedding field metadata). */
const TRAINED_ROWS_KEY = 'reins.indexTrainedRows';
/** Retrain once the table has grown this much past the rows the partitions were fitted to. */
const RETRAIN_GROWTH = 4;

export type VectorIndexKind = 'ivf-flat' | 'ivf-pq';

/** How an indexed search trades speed for recall. */
export interface SearchSettings {
  /** Partitions searched at least; more are searched only when a filter leaves too few results. */
  minimumNprobes: number;
  /** IVF-PQ: candidates re-ranked on the full vectors, as a multiple of k (IVF-FLAT distances are exact already). */
  refineFactor?: number;
}

/** From the measurements above: recall@10 ≥ 0.97 at 1M rows (`reins bench memory` tunes its own). */
export const DEFAULT_SEARCH_SETTINGS: Readonly<Record<VectorIndexKind, SearchSettings>> = Object.freeze({
  'ivf-flat': { minimumNprobes: 10 },
  'ivf-pq': { minimumNprobes: 10, refineFactor: 10 },
});

export interface IndexPlan {
  kind: VectorIndexKind;
  numPartitions: number;
  /** IVF-PQ only. */
  numSubVectors: number;
}

/**
 * ~√rows partitions (a power of two, at least 16), so a probe reads ~√rows vectors; for IVF-PQ,
 * sub-vectors of about 4 floats, using the divisor of the embedding size nearest to size / 4.
 */
export function indexPlan(kind: VectorIndexKind, rows: number, embeddingSize: number): IndexPlan {
  const numPartitions = Math.max(16, 2 ** Math.round(Math.log2(Math.sqrt(Math.max(rows, 1)))));
  let numSubVectors = 1;
  for (let divisor = 1; divisor <= embeddingSize; divisor++) {
    if (embeddingSize % divisor === 0 && Math.abs(divisor - embeddingSize / 4) < Math.abs(numSubVectors - embeddingSize / 4)) numSubVectors = divisor;
  }
  return { kind, numPartitions, numSubVectors };
}

export type IndexOutcome = 'built' | 'retrained' | 'current' | 'too-small';

export interface VectorIndexOptions {
  kind: VectorIndexKind;
  /** No index below this many rows: exact search is fast enough there. */
  minRows: number;
}

/** Builds the vector index once rows ≥ minRows, and retrains it when the table has outgrown it. */
export async function ensureVectorIndex(table: Table, embeddingSize: number, distance: VectorDistance, options: VectorIndexOptions): Promise<IndexOutcome> {
  const rows = await table.countRows();
  const indexed = (await table.listIndices()).some((index) => index.columns.includes(EMBEDDING_COLUMN));
  if (!indexed && rows < options.minRows) return 'too-small';
  if (indexed) {
    const field = (await table.schema()).fields.find((candidate) => candidate.name === EMBEDDING_COLUMN);
    const trainedRows = Number(field?.metadata.get(TRAINED_ROWS_KEY) ?? 0);
    if (rows < trainedRows * RETRAIN_GROWTH) return 'current';
  }
  await buildVectorIndex(table, rows, distance, indexPlan(options.kind, rows, embeddingSize));
  return indexed ? 'retrained' : 'built';
}

export async function buildVectorIndex(table: Table, rows: number, distance: VectorDistance, plan: IndexPlan): Promise<void> {
  const config =
    plan.kind === 'ivf-flat'
      ? Index.ivfFlat({ numPartitions: plan.numPartitions, distanceType: distance })
      : Index.ivfPq({ numPartitions: plan.numPartitions, numSubVectors: plan.numSubVectors, distanceType: distance });
  await table.createIndex(EMBEDDING_COLUMN, { config, replace: true });
  await table.updateFieldMetadata([{ path: EMBEDDING_COLUMN, metadata: { [TRAINED_ROWS_KEY]: String(rows) } }]);
}

/**
 * Scalar indexes for the columns searches filter on and replay reads by. Without them a filter is
 * checked on every row before the vector search: at 1M rows, filtering to operator ticks took the
 * search from ~4 to ~28 ms, and one episode ~17 ms; with them ~5 and ~1 ms (each built in 0.2 s).
 */
const SCALAR_INDEXES: ReadonlyArray<{ column: string; index: () => Index }> = [
  { column: 'episodeId', index: () => Index.btree() },
  { column: 'actedBy', index: () => Index.bitmap() },
  { column: 'timeMs', index: () => Index.btree() },
  { column: 'surpriseNats', index: () => Index.btree() },
];

/** Builds the scalar indexes a table lacks once it holds minRows; returns the columns indexed now. */
export async function ensureScalarIndexes(table: Table, minRows: number): Promise<string[]> {
  if ((await table.countRows()) < minRows) return [];
  const indexed = new Set((await table.listIndices()).flatMap((index) => index.columns));
  const built: string[] = [];
  for (const { column, index } of SCALAR_INDEXES) {
    if (indexed.has(column)) continue;
    await table.createIndex(column, { config: index() });
    built.push(column);
  }
  return built;
}
