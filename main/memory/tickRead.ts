// Ticks read back from LanceDB: Arrow columns → TickRow objects (null → undefined).
import type { Table as ArrowTable, Vector } from 'apache-arrow';
import type { ActedBy, TickRow } from './tickSchema.ts';

export type TickScalars = Omit<TickRow, 'embedding' | 'latent'>;

/** Rows of an Arrow result holding every column of the ticks schema (the vectors are optional). */
export function ticksFromArrow(table: ArrowTable): (TickScalars & Partial<Pick<TickRow, 'embedding' | 'latent'>>)[] {
  const column = (name: string): Vector | undefined => table.getChild(name) ?? undefined;
  const value = <T>(name: string, row: number): T | undefined => {
    const got: unknown = column(name)?.get(row);
    return got === null || got === undefined ? undefined : (got as T);
  };
  const embeddings = column('embedding');
  const latents = column('latent');
  const rows = [];
  for (let i = 0; i < table.numRows; i++) {
    rows.push({
      episodeId: value<string>('episodeId', i)!,
      step: value<number>('step', i)!,
      timeMs: value<number>('timeMs', i)!,
      actionLinearMps: value<number>('actionLinearMps', i)!,
      actionAngularRadps: value<number>('actionAngularRadps', i)!,
      actedBy: value<ActedBy>('actedBy', i)!,
      surpriseNats: value<number>('surpriseNats', i),
      rewardEstimate: value<number>('rewardEstimate', i),
      flags: value<number>('flags', i)!,
      robotId: value<string>('robotId', i)!,
      encoderVersion: value<string>('encoderVersion', i)!,
      worldModelVersion: value<string>('worldModelVersion', i),
      policyVersion: value<string>('policyVersion', i)!,
      mcapFile: value<string>('mcapFile', i),
      mcapLogTimeNs: value<bigint>('mcapLogTimeNs', i),
      ...(embeddings ? { embedding: floats(embeddings.get(i)) } : {}),
      ...(latents ? { latent: latents.get(i) === null ? undefined : floats(latents.get(i)) } : {}),
    });
  }
  return rows;
}

/** A list cell (an Arrow vector of floats) as its own Float32Array. */
function floats(cell: { toArray(): ArrayLike<number> } | null): Float32Array {
  return cell === null ? new Float32Array(0) : Float32Array.from(cell.toArray());
}
