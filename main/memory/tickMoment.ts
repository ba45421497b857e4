// A tick's moment (what a search returns of it: enough to list it and to find its clip in the MCAP
// log), packed into one column, `moment`, when the tick is written. A search fetches its columns for
// each row it finds, one read per column: on the memory bench's 1M-row table the seven columns a
// moment lists cost ~2 ms a search over the distance alone, this one column ~1 ms (docs/reliability.md,
// "Built: the moment in one column"). Ticks tables made before schema version 2 hold rows without it;
// those are searched for the seven columns, as before.
import { ACTED_BY, type ActedBy, type TickRow } from './tickSchema.ts';

export const MOMENT_COLUMNS = ['episodeId', 'step', 'timeMs', 'actedBy', 'surpriseNats', 'mcapFile', 'mcapLogTimeNs'] as const;

export type MomentFields = Pick<TickRow, (typeof MOMENT_COLUMNS)[number]>;

/**
 * A JSON array of the seven fields in MOMENT_COLUMNS' order (null for an absent one, the log time as
 * a decimal string). The surprise is kept as its column stores it (a 32-bit float), so a moment read
 * from either reads the same.
 */
export function packMoment(row: MomentFields): string {
  return JSON.stringify([
    row.episodeId,
    row.step,
    row.timeMs,
    row.actedBy,
    row.surpriseNats === undefined ? null : Math.fround(row.surpriseNats),
    row.mcapFile ?? null,
    row.mcapLogTimeNs === undefined ? null : String(row.mcapLogTimeNs),
  ]);
}

/** The fields of a packed moment; throws, naming what is wrong, for text that is not one. */
export function unpackMoment(text: string): MomentFields {
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    throw new Error(`a tick's packed moment is not JSON: ${text.slice(0, 80)}`);
  }
  if (!Array.isArray(fields) || fields.length !== MOMENT_COLUMNS.length)
    throw new Error(`a tick's packed moment is not ${MOMENT_COLUMNS.length} fields: ${text.slice(0, 80)}`);
  const [episodeId, step, timeMs, actedBy, surpriseNats, mcapFile, mcapLogTimeNs] = fields as unknown[];
  const wrong = (field: string) => new Error(`a tick's packed moment has a bad ${field}: ${text.slice(0, 80)}`);
  if (typeof episodeId !== 'string') throw wrong('episodeId');
  if (typeof step !== 'number') throw wrong('step');
  if (typeof timeMs !== 'number') throw wrong('timeMs');
  if (typeof actedBy !== 'string' || !(ACTED_BY as readonly string[]).includes(actedBy)) throw wrong('actedBy');
  if (surpriseNats !== null && typeof surpriseNats !== 'number') throw wrong('surpriseNats');
  if (mcapFile !== null && typeof mcapFile !== 'string') throw wrong('mcapFile');
  if (mcapLogTimeNs !== null && (typeof mcapLogTimeNs !== 'string' || !/^-?\d+$/.test(mcapLogTimeNs))) throw wrong('mcapLogTimeNs');
  return {
    episodeId,
    step,
    timeMs,
    actedBy: actedBy as ActedBy,
    surpriseNats: surpriseNats ?? undefined,
    mcapFile: mcapFile ?? undefined,
    mcapLogTimeNs: mcapLogTimeNs === null ? undefined : BigInt(mcapLogTimeNs),
  };
}
