// What replay sampling needs to know about the ticks (every segment), read once without the vectors: each
// episode's steps with who acted and how surprising each was, and the spans where the operator
// intervened (from the corrections, leaving out any an undo withdrew).
import type { CorrectionRow } from './corrections.ts';
import type { RecordTables } from './recordTables.ts';
import type { TickStore } from './tickStore.ts';

export const ACTOR_CODES = Object.freeze({ policy: 1, operator: 2, other: 0 });

export interface ReplayEpisode {
  episodeId: string;
  /** Ascending; a gap (dropped rows) splits the episode into separate runs. */
  steps: Int32Array;
  /** ACTOR_CODES per step. */
  actors: Uint8Array;
  /** Per step, KL(posterior ‖ prior); 0 where none was recorded. */
  surpriseNats: Float32Array;
}

export interface StepSpan {
  startStep: number;
  endStep: number;
}

export interface ReplayIndex {
  /** Sorted by episodeId, so sampling does not depend on the order rows were stored in. */
  episodes: ReplayEpisode[];
  interventions: ReadonlyMap<string, readonly StepSpan[]>;
}

export async function loadReplayIndex(store: TickStore, records?: RecordTables): Promise<ReplayIndex> {
  const columns = ['episodeId', 'step', 'actedBy', 'surpriseNats'];
  const result = await store.query({ columns });
  const [episodeIds, steps, actedBy, surpriseNats] = columns.map((name) => result.getChild(name)!);
  const rowsByEpisode = new Map<string, number[]>();
  for (let row = 0; row < result.numRows; row++) {
    const episodeId = String(episodeIds!.get(row));
    let rows = rowsByEpisode.get(episodeId);
    if (rows === undefined) rowsByEpisode.set(episodeId, (rows = []));
    rows.push(row);
  }
  const episodes = [...rowsByEpisode.keys()].sort().map((episodeId): ReplayEpisode => {
    const rows = rowsByEpisode.get(episodeId)!.sort((a, b) => Number(steps!.get(a)) - Number(steps!.get(b)));
    return {
      episodeId,
      steps: Int32Array.from(rows, (row) => Number(steps!.get(row))),
      actors: Uint8Array.from(rows, (row) => actorCode(String(actedBy!.get(row)))),
      surpriseNats: Float32Array.from(rows, (row) => Number(surpriseNats!.get(row) ?? 0)),
    };
  });
  return { episodes, interventions: records ? await interventionSpans(records) : new Map() };
}

function actorCode(actedBy: string): number {
  return actedBy === 'policy' ? ACTOR_CODES.policy : actedBy === 'operator' ? ACTOR_CODES.operator : ACTOR_CODES.other;
}

async function interventionSpans(records: RecordTables): Promise<Map<string, StepSpan[]>> {
  const undone = new Set((await records.listCorrections({ kind: 'undo' })).map((undo) => undo.undoesCorrectionId));
  const spans = new Map<string, StepSpan[]>();
  const interventions: CorrectionRow[] = await records.listCorrections({ kind: 'intervention' });
  for (const intervention of interventions) {
    if (undone.has(intervention.correctionId)) continue;
    const list = spans.get(intervention.episodeId) ?? [];
    list.push({ startStep: intervention.spanStartStep, endStep: intervention.spanEndStep });
    spans.set(intervention.episodeId, list);
  }
  return spans;
}
