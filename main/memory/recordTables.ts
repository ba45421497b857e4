// The low-rate tables — episodes, corrections, checkpoints — written straight through (they come
// from operator actions and the learner, never from the tick) and read back whole or filtered.
import type { Connection, Table } from '@lancedb/lancedb';
import { checkpointRowSchema, checkpointsSchema, CHECKPOINTS_SCHEMA_VERSION, type CheckpointRow } from './checkpoints.ts';
import { ConnectionGate } from './connectionGate.ts';
import { correctionRowSchema, correctionsSchema, CORRECTIONS_SCHEMA_VERSION, type CorrectionKind, type CorrectionRow } from './corrections.ts';
import { episodeRowSchema, episodesSchema, EPISODES_SCHEMA_VERSION, type EpisodeRow } from './episodes.ts';
import { parseRecordRow, withNulls, withoutNulls } from './recordRows.ts';
import { sqlAnd, sqlColumn, sqlString } from './sqlFilter.ts';
import { openReinsTable } from './tableSchema.ts';

type RecordHandles = { episodes: Table; corrections: Table; checkpoints: Table };

export class RecordTables {
  private constructor(
    private tables: RecordHandles,
    private readonly gate: ConnectionGate,
  ) {}

  get episodes(): Table {
    return this.tables.episodes;
  }

  get corrections(): Table {
    return this.tables.corrections;
  }

  get checkpoints(): Table {
    return this.tables.checkpoints;
  }

  static async open(db: Connection, uri: string, existing: readonly string[], gate = new ConnectionGate()): Promise<RecordTables> {
    return new RecordTables(
      {
        episodes: await openReinsTable(db, uri, { name: 'episodes', kind: 'episodes', version: EPISODES_SCHEMA_VERSION, schema: episodesSchema() }, existing),
        corrections: await openReinsTable(
          db,
          uri,
          { name: 'corrections', kind: 'corrections', version: CORRECTIONS_SCHEMA_VERSION, schema: correctionsSchema() },
          existing,
        ),
        checkpoints: await openReinsTable(
          db,
          uri,
          { name: 'checkpoints', kind: 'checkpoints', version: CHECKPOINTS_SCHEMA_VERSION, schema: checkpointsSchema() },
          existing,
        ),
      },
      gate,
    );
  }

  /** Handles on these tables from another connection, for adopt() (Memory.reconnect()). */
  static async openHandles(db: Connection): Promise<RecordHandles> {
    return { episodes: await db.openTable('episodes'), corrections: await db.openTable('corrections'), checkpoints: await db.openTable('checkpoints') };
  }

  /** Moves to handles from another connection; returns the old ones to close. */
  adopt(next: RecordHandles): Table[] {
    const previous = this.all;
    this.tables = next;
    return [...previous];
  }

  get all(): readonly Table[] {
    return [this.episodes, this.corrections, this.checkpoints];
  }

  /** Records an episode, or updates it (same episodeId) when it ends. */
  async putEpisode(row: EpisodeRow): Promise<void> {
    const episode = parseRecordRow('episodes', episodeRowSchema, row);
    const columns = episodesSchema().fields.map((field) => field.name);
    await this.gate.run(() =>
      this.episodes
        .mergeInsert('episodeId')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .execute([withNulls(episode, columns)]),
    );
  }

  async addCorrection(row: CorrectionRow): Promise<void> {
    const correction = parseRecordRow('corrections', correctionRowSchema, row);
    await this.gate.run(() =>
      this.corrections.add([
        withNulls(
          correction,
          correctionsSchema().fields.map((field) => field.name),
        ),
      ]),
    );
  }

  async addCheckpoint(row: CheckpointRow): Promise<void> {
    const { scores, ...checkpoint } = parseRecordRow('checkpoints', checkpointRowSchema, row);
    const columns = checkpointsSchema().fields.map((field) => field.name);
    await this.gate.run(() => this.checkpoints.add([withNulls({ ...checkpoint, scoresJson: JSON.stringify(scores) }, columns)]));
  }

  async listEpisodes(): Promise<EpisodeRow[]> {
    const rows = await this.episodes.query().toArray();
    return rows.map((row) => withoutNulls(row) as EpisodeRow).sort((a, b) => a.startMs - b.startMs);
  }

  /** Corrections in the order they were made, optionally of one kind or one episode. */
  async listCorrections(filter: { kind?: CorrectionKind; episodeId?: string } = {}): Promise<CorrectionRow[]> {
    const where = sqlAnd([
      ...(filter.kind ? [`${sqlColumn('kind')} = ${sqlString(filter.kind)}`] : []),
      ...(filter.episodeId ? [`${sqlColumn('episodeId')} = ${sqlString(filter.episodeId)}`] : []),
    ]);
    const query = this.corrections.query();
    const rows = await (where ? query.where(where) : query).toArray();
    return rows.map((row) => withoutNulls(row) as CorrectionRow).sort((a, b) => a.atMs - b.atMs);
  }

  async listCheckpoints(modelKind?: CheckpointRow['modelKind']): Promise<CheckpointRow[]> {
    const query = this.checkpoints.query();
    const rows = await (modelKind ? query.where(`${sqlColumn('modelKind')} = ${sqlString(modelKind)}`) : query).toArray();
    return rows
      .map((row) => {
        const { scoresJson, ...rest } = withoutNulls(row);
        return { ...rest, scores: JSON.parse(String(scoresJson)) as Record<string, number> } as CheckpointRow;
      })
      .sort((a, b) => a.createdAtMs - b.createdAtMs);
  }
}
