import * as lancedb from '@lancedb/lancedb';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { arrow } from './arrow.ts';
import { Memory } from './memory.ts';
import { MemoryOpenError } from './memoryErrors.ts';
import { defaultMemoryUri, localPath } from './memoryLocation.ts';
import { SCHEMA_KEYS } from './tableSchema.ts';
import { ticksSchema, ticksTableName, type TickRow, type TickSpace } from './tickSchema.ts';
import { tickRow } from '../../test/support/tickRows.ts';

const SPACE: TickSpace = { encoderVersion: 'enc-1', embeddingSize: 4, distance: 'l2' };
const episodeTick = (episodeId: string): TickRow => tickRow({ episodeId, embedding: Float32Array.from([1, 2, 3, 4]), robotId: 'r' });
const open = (uri: string) => Memory.open({ uri, maintenance: { periodMs: 0 } });

async function openError(uri: string, space?: TickSpace): Promise<MemoryOpenError> {
  try {
    const memory = await open(uri);
    try {
      if (space) await memory.ticks(space);
    } finally {
      await memory.close();
    }
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryOpenError);
    return error as MemoryOpenError;
  }
  throw new Error(`memory at ${uri} opened`);
}

describe('the memory location', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'reins-memory-'));
  });
  afterEach(() => rmSync(folder, { recursive: true, force: true }));

  it('is a folder under the XDG data home by default', () => {
    expect(defaultMemoryUri({ XDG_DATA_HOME: '/data' }, '/home/op')).toBe('/data/reins/memory');
    expect(defaultMemoryUri({}, '/home/op')).toBe('/home/op/.local/share/reins/memory');
    expect(localPath('s3://fleet/memory')).toBeUndefined();
    expect(localPath('file:///var/reins')).toBe('/var/reins');
  });

  it('is created when missing, and opens again with the same tables', async () => {
    const uri = join(folder, 'new', 'memory');
    const memory = await open(uri);
    await memory.ticks(SPACE);
    await memory.close();
    const again = await open(uri);
    expect(await again.tickSpaces()).toEqual([SPACE]);
    await again.close();
    const tables = readdirSync(uri).filter((entry) => entry.endsWith('.lance'));
    expect(tables.sort()).toEqual(['checkpoints.lance', 'corrections.lance', 'episodes.lance', 'reins_meta.lance', 'ticks-enc-1.lance']);
  });

  it('opens a folder LanceDB was pointed at before Reins made any table in it', async () => {
    (await lancedb.connect(folder)).close();
    await (await open(folder)).close();
    expect(readdirSync(folder)).toContain('reins_meta.lance');
  });

  it('may be a relative path', async () => {
    const memory = await open(relative(process.cwd(), join(folder, 'relative')));
    await memory.close();
    expect(readdirSync(join(folder, 'relative'))).toContain('reins_meta.lance');
  });

  it('refuses a file where the folder should be', async () => {
    writeFileSync(join(folder, 'memory'), 'not a folder');
    expect((await openError(join(folder, 'memory'))).message).toBe(`memory at ${join(folder, 'memory')}: is a file, not a folder`);
  });

  it('refuses a folder of someone else’s files, naming some of them', async () => {
    for (const name of ['a.txt', 'b.bin', 'c', 'd']) writeFileSync(join(folder, name), 'x');
    const error = await openError(folder);
    expect(error.message).toMatch(/is not a Reins memory: the folder holds a\.txt, b\.bin, c, … \(4 entries\) and no reins_meta table/);
    expect(error.hint).toMatch(/empty folder/);
  });

  it('refuses a LanceDB folder that Reins did not write', async () => {
    const db = await lancedb.connect(folder);
    await db.createTable('vectors', [{ id: 1 }]);
    db.close();
    expect((await openError(folder)).message).toMatch(/is not a Reins memory/);
  });

  it('refuses a damaged table with its name and LanceDB’s reason', async () => {
    await (await open(folder)).close();
    const versions = join(folder, 'episodes.lance', '_versions');
    for (const name of readdirSync(versions)) writeFileSync(join(versions, name), 'garbage, not a manifest');
    expect((await openError(folder)).message).toMatch(/^memory at .*: table episodes cannot be opened \(.+\)$/);
  });

  it('refuses a table of the right name written by another program', async () => {
    await (await open(folder)).close();
    const db = await lancedb.connect(folder);
    await db.createTable(ticksTableName('enc-1'), [{ embedding: [1, 2, 3, 4] }]);
    db.close();
    expect((await openError(folder, SPACE)).message).toMatch(/table ticks-enc-1 was not written by Reins \(no reins.table in its schema\)/);
  });

  it('refuses a ticks table of the same encoder version with another embedding size', async () => {
    const memory = await open(folder);
    await memory.ticks(SPACE);
    await memory.close();
    expect((await openError(folder, { ...SPACE, embeddingSize: 8 })).message).toMatch(
      /column embedding is FixedSizeList\[4\]<Float32>, expected FixedSizeList\[8\]<Float32>/,
    );
  });

  it('keeps encoder versions apart, one table each, even when their names need escaping', async () => {
    const memory = await open(folder);
    await memory.ticks(SPACE);
    await memory.ticks({ encoderVersion: 'dino v2/small', embeddingSize: 8, distance: 'cosine' });
    expect((await memory.tickSpaces()).map((space) => space.encoderVersion).sort()).toEqual(['dino v2/small', 'enc-1']);
    expect(ticksTableName('dino v2/small')).toMatch(/^ticks-dino_v2_small-[0-9a-f]{8}$/);
    await memory.close();
  });

  it('migrates a ticks table of an older schema: columns added since arrive empty', async () => {
    await (await open(folder)).close();
    // A table as an older Reins wrote it: before rewardEstimate and the MCAP pointer existed.
    const current = ticksSchema(SPACE);
    const added = ['rewardEstimate', 'mcapFile', 'mcapLogTimeNs'];
    const metadata = new Map(current.metadata);
    metadata.set(SCHEMA_KEYS.schemaVersion, '0');
    const older = new arrow.Schema(
      current.fields.filter((field) => !added.includes(field.name)),
      metadata,
    );
    const db = await lancedb.connect(folder);
    const table = await db.createEmptyTable(ticksTableName('enc-1'), older);
    await table.add([
      {
        episodeId: 'old',
        step: 0,
        timeMs: 1,
        embedding: [1, 2, 3, 4],
        latent: null,
        actionLinearMps: 0,
        actionAngularRadps: 0,
        actedBy: 'operator',
        surpriseNats: null,
        flags: 0,
        robotId: 'r',
        encoderVersion: 'enc-1',
        worldModelVersion: null,
        policyVersion: 'p',
      },
    ]);
    db.close();

    const memory = await open(folder);
    const store = await memory.ticks(SPACE);
    // The added columns come last; rows are matched to columns by name. The old table is read in place.
    expect((await store.segments[0]!.table.schema()).fields.map((field) => field.name).sort()).toEqual(current.fields.map((field) => field.name).sort());
    await store.write([{ ...episodeTick('new'), rewardEstimate: 0.5, mcapFile: 'run.mcap' }]);
    const rows = (await store.query({ columns: ['episodeId', 'rewardEstimate', 'mcapFile'] })).toArray().map((row) => row.toJSON());
    expect(rows.sort((a, b) => a.episodeId.localeCompare(b.episodeId))).toEqual([
      { episodeId: 'new', rewardEstimate: 0.5, mcapFile: 'run.mcap' },
      { episodeId: 'old', rewardEstimate: null, mcapFile: null },
    ]);
    await memory.close();
  });

  it('refuses a table written by a newer Reins', async () => {
    await (await open(folder)).close();
    const metadata = new Map(ticksSchema(SPACE).metadata);
    metadata.set(SCHEMA_KEYS.schemaVersion, '99');
    const db = await lancedb.connect(folder);
    await db.createEmptyTable(ticksTableName('enc-1'), new arrow.Schema(ticksSchema(SPACE).fields, metadata));
    db.close();
    const error = await openError(folder, SPACE);
    expect(error.message).toMatch(/table ticks-enc-1 has schema version 99, newer than this Reins understands \(2\)/);
    expect(error.hint).toMatch(/Update Reins/);
  });

  it('cannot be made under a file', async () => {
    writeFileSync(join(folder, 'file'), 'x');
    mkdirSync(join(folder, 'ok'));
    expect((await openError(join(folder, 'file', 'memory'))).message).toMatch(/cannot be used \(.*ENOTDIR/);
  });
});
