// What the whole memory teaches, for the slow path (DESIGN §3): the ticks someone drove (operator and
// policy) of one encoder version, newest first up to a bound, and the feedback the corrections table
// holds, as the learners read it. Undone items, skipped questions and feedback about ticks of another
// encoder version teach nothing; the learner drops items whose ticks were not read.
import type { Table as ArrowTable } from 'apache-arrow';
import type { CorrectionRow } from '../memory/corrections.ts';
import type { RecordTables } from '../memory/recordTables.ts';
import { sqlAnd, sqlColumn, sqlIn, sqlNumber } from '../memory/sqlFilter.ts';
import type { TickStore } from '../memory/tickStore.ts';
import type { FeedbackSignals, InterventionSignal, PreferenceSignal, RatingSignal } from './feedbackTypes.ts';

/** Ticks packed for a worker thread: one flat array per column, oldest first. */
export interface PackedTicks {
  count: number;
  embeddingSize: number;
  embeddings: Float32Array;
  /** [linear m/s, angular rad/s] per tick. */
  actions: Float32Array;
  drivers: Array<'operator' | 'policy'>;
  episodeIds: string[];
  steps: Int32Array;
}

export interface MemoryTeaching {
  ticks: PackedTicks;
  signals: FeedbackSignals;
  /** The driven ticks the memory holds for this encoder version, read or not. */
  drivenTicksHeld: number;
}

const DRIVEN = ['operator', 'policy'] as const;

/** Reads the newest `maxTicks` driven ticks and every standing correction. */
export async function readMemoryTeaching(
  store: TickStore,
  records: Pick<RecordTables, 'listCorrections' | 'corrections'>,
  maxTicks: number,
): Promise<MemoryTeaching> {
  if (!(Number.isInteger(maxTicks) && maxTicks >= 1)) throw new RangeError(`maxTicks must be a whole number ≥ 1, got ${maxTicks}`);
  // Other connections write these tables (the tick writer, the feedback ledger): read their newest commits.
  await store.refresh();
  await records.corrections.checkoutLatest();
  const driven = sqlIn('actedBy', DRIVEN);
  // Times first (one column), so that only the newest ticks' embeddings are read.
  const times = (await store.query({ where: driven, columns: ['timeMs'] })).getChild('timeMs')?.toArray() as Float64Array | undefined;
  const held = times?.length ?? 0;
  if (times === undefined || held === 0)
    return { ticks: packTicks(undefined, [], store.space.embeddingSize), signals: signalsFromCorrections(await records.listCorrections()), drivenTicksHeld: 0 };
  let where = driven;
  if (held > maxTicks) {
    const newest = Float64Array.from(times).sort().reverse();
    where = sqlAnd([driven, `${sqlColumn('timeMs')} >= ${sqlNumber(newest[maxTicks - 1]!)}`])!;
  }
  const columns = ['episodeId', 'step', 'timeMs', 'embedding', 'actionLinearMps', 'actionAngularRadps', 'actedBy'];
  const table = await store.query({ where, columns });
  // Oldest first, as the learner's ring holds them; ticks sharing the bound's time may pass it, so cut again.
  const timeMs = table.getChild('timeMs')!.toArray() as Float64Array;
  const steps = table.getChild('step')!.toArray() as Int32Array;
  const order = Array.from({ length: table.numRows }, (_, row) => row).sort((a, b) => timeMs[a]! - timeMs[b]! || steps[a]! - steps[b]!);
  const kept = order.slice(Math.max(0, order.length - maxTicks));
  return { ticks: packTicks(table, kept, store.space.embeddingSize), signals: signalsFromCorrections(await records.listCorrections()), drivenTicksHeld: held };
}

/** The rows of a query's result, in the order given, column by column (no row objects: a retrain reads tens of thousands). */
function packTicks(table: ArrowTable | undefined, rows: readonly number[], embeddingSize: number): PackedTicks {
  const packed: PackedTicks = {
    count: rows.length,
    embeddingSize,
    embeddings: new Float32Array(rows.length * embeddingSize),
    actions: new Float32Array(rows.length * 2),
    drivers: [],
    episodeIds: [],
    steps: new Int32Array(rows.length),
  };
  if (table === undefined) return packed;
  const column = (name: string) => table.getChild(name)!;
  const [episodeIds, actedBy, embeddings] = [column('episodeId'), column('actedBy'), column('embedding')];
  const [steps, linear, angular] = [
    column('step').toArray() as Int32Array,
    column('actionLinearMps').toArray() as Float32Array,
    column('actionAngularRadps').toArray() as Float32Array,
  ];
  rows.forEach((row, index) => {
    packed.embeddings.set((embeddings.get(row) as { toArray(): Float32Array }).toArray(), index * embeddingSize);
    packed.actions[index * 2] = linear[row]!;
    packed.actions[index * 2 + 1] = angular[row]!;
    packed.drivers.push(String(actedBy.get(row)) as 'operator' | 'policy');
    packed.episodeIds.push(String(episodeIds.get(row)));
    packed.steps[index] = steps[row]!;
  });
  teachResponses(packed);
  return packed;
}

/**
 * An operator's tick is taught with the operator's response to it — the action of the next tick of
 * its episode while the operator still drove it (see LearningSession.onTick: a row's own action is the
 * command the operator gave before the tick, the one the encoders were given as the last sent). The
 * last operator tick of a run keeps its own.
 */
export function teachResponses(packed: PackedTicks): void {
  const at = new Map<string, number>();
  for (let index = 0; index < packed.count; index++) at.set(`${packed.episodeIds[index]}|${packed.steps[index]}`, index);
  const responses = new Float32Array(packed.actions);
  for (let index = 0; index < packed.count; index++) {
    if (packed.drivers[index] !== 'operator') continue;
    const next = at.get(`${packed.episodeIds[index]}|${packed.steps[index]! + 1}`);
    if (next === undefined || packed.drivers[next] !== 'operator') continue;
    responses[index * 2] = packed.actions[next * 2]!;
    responses[index * 2 + 1] = packed.actions[next * 2 + 1]!;
  }
  packed.actions.set(responses);
}

/**
 * The corrections table as the learners read it: every intervention, answer and rating that no undo
 * withdrew. A skipped question ("unsure") teaches nothing. Rows come in the order they were made.
 */
export function signalsFromCorrections(rows: readonly CorrectionRow[]): FeedbackSignals {
  const undone = new Set(rows.filter((row) => row.kind === 'undo').map((row) => row.undoesCorrectionId!));
  const interventions: InterventionSignal[] = [];
  const preferences: PreferenceSignal[] = [];
  const ratings: RatingSignal[] = [];
  for (const row of rows) {
    if (undone.has(row.correctionId)) continue;
    const other =
      row.otherEpisodeId !== undefined && row.otherSpanStartStep !== undefined && row.otherSpanEndStep !== undefined
        ? { episodeId: row.otherEpisodeId, startStep: row.otherSpanStartStep, endStep: row.otherSpanEndStep }
        : undefined;
    const span = { episodeId: row.episodeId, startStep: row.spanStartStep, endStep: row.spanEndStep };
    if (row.kind === 'intervention') {
      interventions.push({ id: row.correctionId, atStep: row.spanStartStep, episodeId: row.episodeId, policySegment: other, operatorSegment: span });
    } else if (row.kind === 'preference' && other !== undefined && row.answer !== undefined && row.answer !== 'unsure') {
      preferences.push({ id: row.correctionId, first: span, second: other, answer: row.answer });
    } else if (row.kind === 'rating' && row.rating !== undefined) {
      ratings.push({ id: row.correctionId, episodeId: row.episodeId, step: row.spanStartStep, rating: row.rating });
    }
  }
  return { interventions, preferences, ratings };
}
