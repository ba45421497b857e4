// The memory as a running core keeps it (DESIGN §2 step 9): the LanceDB memory at a URI, its ticks
// table for the encoders' embedding space, and the writer that takes a row per tick off the loop's
// path. One factory, so `reins start` (sessionStores), the memory bench and the soak's read-back open
// the memory the same way.
import type { Perception } from '../core/perception.ts';
import type { TickReport } from '../core/tickReport.ts';
import { Memory, type MemoryOptions } from '../memory/memory.ts';
import { MemoryWriter } from '../memory/memoryWriter.ts';
import { tickRowFromReport, type TickContext } from '../memory/tickFromReport.ts';
import type { TickFilter } from '../memory/tickFilter.ts';
import type { TickRow, TickSpace } from '../memory/tickSchema.ts';
import { nearestMoments, type Moment, type MomentQuery, type SearchOptions } from '../memory/tickSearch.ts';
import type { TickStore } from '../memory/tickStore.ts';
import type { SearchSettings } from '../memory/vectorIndex.ts';

export type { Memory, MemoryWriter, Moment, SearchSettings, TickFilter, TickRow, TickSpace, TickStore };
export { FLAT_UPKEEP_SEGMENT_ROWS } from '../memory/tickSegments.ts';

/** What only the session knows of a tick: its episode and step, the robot, where the recorder put it. */
export type TickPlace = Omit<TickContext, 'encoderVersion'>;

export interface TickMemory {
  readonly memory: Memory;
  readonly space: TickSpace;
  readonly store: TickStore;
  readonly writer: MemoryWriter<TickRow>;
  /** The tick as a memory row, queued (never waiting); the row, or undefined when the writer refused it. */
  remember(report: TickReport, place: TickPlace): TickRow | undefined;
  /** The nearest ticks to an embedding or a stored tick, as "find similar moments" searches them. */
  nearest(query: MomentQuery, options?: Partial<SearchOptions>): Promise<Moment[]>;
  /** Writes what is queued, then closes the memory. */
  close(): Promise<void>;
}

/** The memory at a LanceDB URI (a folder, or object storage), opened or created. */
export function openMemory(uri: string, options: Omit<Partial<MemoryOptions>, 'uri'> = {}): Promise<Memory> {
  return Memory.open({ ...options, uri });
}

/** The space a session's ticks live in: the encoders' version and embedding size, compared by L2. */
export function tickSpaceOf(perception: Pick<Perception, 'version' | 'embeddingSize'>): TickSpace {
  return { encoderVersion: perception.version, embeddingSize: perception.embeddingSize, distance: 'l2' };
}

/** The memory, the ticks table for these encoders, and its writer. */
export async function openTickMemory(
  uri: string,
  perception: Pick<Perception, 'version' | 'embeddingSize'>,
  options: Omit<Partial<MemoryOptions>, 'uri'> = {},
): Promise<TickMemory> {
  const memory = await openMemory(uri, options);
  const space = tickSpaceOf(perception);
  const store = await memory.ticks(space);
  const writer = new MemoryWriter(store, {}, options.schedule);
  return {
    memory,
    space,
    store,
    writer,
    remember(report, place) {
      const row = tickRowFromReport(report, { ...place, encoderVersion: space.encoderVersion });
      return writer.append(row).accepted ? row : undefined;
    },
    nearest: (query, searchOptions) => nearestMoments(store, query, searchOptions),
    async close() {
      await writer.close();
      await memory.close();
    },
  };
}

/** The rows a memory holds in one tick space (a session's count after it has closed). */
export async function countMemoryTicks(uri: string, space: TickSpace): Promise<number> {
  const memory = await openMemory(uri, { maintenance: { periodMs: 0 } });
  try {
    return await (await memory.ticks(space)).countRows();
  } finally {
    await memory.close();
  }
}
