// Every memory table carries its kind and schema version in its Arrow schema metadata. Opening one
// checks both: a table of another program is refused, a newer schema is refused, an older one is
// migrated (the columns added since are added, empty), and whatever still differs is refused with
// the column named. The columns are the truth; the stored version says which Reins made the table.
import type { Connection, Table } from '@lancedb/lancedb';
import type { Field, Schema } from 'apache-arrow';
import { describeLanceError, MemoryOpenError } from './memoryErrors.ts';

export const SCHEMA_KEYS = Object.freeze({ table: 'reins.table', schemaVersion: 'reins.schemaVersion' });

export interface TableSpec {
  name: string;
  /** What the table holds ('ticks', 'episodes', …), as written in its metadata. */
  kind: string;
  version: number;
  schema: Schema;
}

const FOREIGN_HINT = 'Point Reins at an empty folder or at a memory it wrote, and move this one aside.';

/** Opens the table, creating it empty if it is not there; checks and migrates its schema. */
export async function openReinsTable(db: Connection, uri: string, spec: TableSpec, existing: readonly string[]): Promise<Table> {
  if (!existing.includes(spec.name)) {
    // existOk: a second process may have made it a moment ago; it is then checked like any other.
    const created = await db.createEmptyTable(spec.name, spec.schema, { mode: 'create', existOk: true });
    await checkSchema(created, uri, spec);
    return created;
  }
  let table: Table;
  try {
    table = await db.openTable(spec.name);
  } catch (error) {
    throw new MemoryOpenError(
      uri,
      `table ${spec.name} cannot be opened (${describeLanceError(error)})`,
      `The folder is damaged or not a Reins memory. ${FOREIGN_HINT}`,
      { cause: error },
    );
  }
  await checkSchema(table, uri, spec);
  return table;
}

/** The schema version a table was made with, as its metadata says (a migration adds columns, not a new version). */
export async function storedSchemaVersion(table: Table): Promise<number> {
  return schemaVersionOf(await table.schema());
}

function schemaVersionOf(schema: Schema): number {
  return Number(schema.metadata.get(SCHEMA_KEYS.schemaVersion));
}

async function checkSchema(table: Table, uri: string, spec: TableSpec): Promise<void> {
  const schema = await table.schema();
  const kind = schema.metadata.get(SCHEMA_KEYS.table);
  if (kind !== spec.kind) {
    const what = kind === undefined ? 'was not written by Reins (no reins.table in its schema)' : `holds ${kind}, not ${spec.kind}`;
    throw new MemoryOpenError(uri, `table ${spec.name} ${what}`, FOREIGN_HINT);
  }
  const version = schemaVersionOf(schema);
  if (!Number.isInteger(version)) {
    throw new MemoryOpenError(uri, `table ${spec.name} has no readable schema version`, FOREIGN_HINT);
  }
  if (version > spec.version) {
    throw new MemoryOpenError(
      uri,
      `table ${spec.name} has schema version ${version}, newer than this Reins understands (${spec.version})`,
      'Update Reins to open this memory, or point it at another folder.',
    );
  }
  if (version < spec.version) await addMissingColumns(table, schema, spec);
  const mismatch = firstMismatch((await table.schema()).fields, spec.schema.fields);
  if (mismatch !== undefined) {
    throw new MemoryOpenError(uri, `table ${spec.name} (schema version ${version}) cannot be used: ${mismatch}`, FOREIGN_HINT);
  }
}

/** The migration from any older version: columns added since then arrive empty (null). */
async function addMissingColumns(table: Table, schema: Schema, spec: TableSpec): Promise<void> {
  const present = new Set(schema.fields.map((field) => field.name));
  const missing = spec.schema.fields.filter((field) => !present.has(field.name) && field.nullable);
  if (missing.length > 0) await table.addColumns(missing);
}

function firstMismatch(actual: readonly Field[], expected: readonly Field[]): string | undefined {
  const byName = new Map(actual.map((field) => [field.name, field]));
  for (const want of expected) {
    const have = byName.get(want.name);
    if (have === undefined) return `column ${want.name} is missing`;
    if (String(have.type) !== String(want.type)) return `column ${want.name} is ${String(have.type)}, expected ${String(want.type)}`;
    if (have.nullable && !want.nullable) return `column ${want.name} allows nulls, expected none`;
  }
  const extra = actual.find((field) => !expected.some((want) => want.name === field.name));
  return extra === undefined ? undefined : `unexpected column ${extra.name}`;
}
