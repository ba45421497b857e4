// `reins_meta`: the table whose presence says "this location is a Reins memory", created before any
// other; its schema metadata carries the memory's format version.
import type { Schema } from 'apache-arrow';
import { arrow } from './arrow.ts';
import { META_TABLE } from './memoryLocation.ts';
import { SCHEMA_KEYS } from './tableSchema.ts';

export const META_SCHEMA_VERSION = 1;

export function metaSchema(): Schema {
  const { Field, Utf8, Schema } = arrow;
  return new Schema(
    [new Field('key', new Utf8(), false), new Field('value', new Utf8(), false)],
    new Map([
      [SCHEMA_KEYS.table, META_TABLE],
      [SCHEMA_KEYS.schemaVersion, String(META_SCHEMA_VERSION)],
    ]),
  );
}
