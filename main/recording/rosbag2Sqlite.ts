// A ROS 2 bag in SQLite storage (`.db3`, rosbag2's sqlite3 plugin, the default before Iron) is not
// reviewed: Reins reads MCAP, the default since Iron, and `ros2 bag convert` turns one into the other.
// What the operator must do depends on the bag, so its tables are read (node-sqlite3-wasm: Node 20
// has no SQLite of its own, and better-sqlite3 would download a native build on install): bags from
// Iron on carry a `message_definitions` table, so they convert anywhere and a reader could decode
// them from the file alone; Humble's do not, so the conversion needs the message packages installed.
import { basename, extname } from 'node:path';

/** What a rosbag2 SQLite file holds that decides how it converts. */
export interface Rosbag2SqliteFacts {
  topics: { name: string; type: string }[];
  /** Types whose definitions the file carries; undefined when it has no message_definitions table. */
  definedTypes: number | undefined;
  /** The ROS 2 distribution that wrote it, where the file says (its `schema` table, since Humble). */
  rosDistro: string | undefined;
}

/** The file's rosbag2 tables; throws, in words, when it is not a rosbag2 SQLite file or cannot be read. */
export async function readRosbag2SqliteFacts(path: string): Promise<Rosbag2SqliteFacts> {
  const { default: sqlite } = await import('node-sqlite3-wasm');
  const db = new sqlite.Database(path, { readOnly: true, fileMustExist: true });
  try {
    const tables = new Set(db.all("SELECT name FROM sqlite_master WHERE type = 'table'").map((row) => String(row['name'])));
    if (!tables.has('topics') || !tables.has('messages')) throw new Error('it has no rosbag2 topics and messages tables');
    const topics = db.all('SELECT name, type FROM topics ORDER BY id').map((row) => ({ name: String(row['name']), type: String(row['type']) }));
    const definedTypes = tables.has('message_definitions') ? Number(db.get('SELECT COUNT(*) AS n FROM message_definitions')?.['n'] ?? 0) : undefined;
    const rosDistro = tables.has('schema') ? db.get('SELECT ros_distro FROM schema ORDER BY schema_version DESC LIMIT 1')?.['ros_distro'] : undefined;
    return { topics, definedTypes, rosDistro: typeof rosDistro === 'string' && rosDistro !== '' ? rosDistro : undefined };
  } finally {
    db.close();
  }
}

/** Why a `.db3` bag is not reviewed and how to convert it to MCAP, for this bag (or for both kinds when its tables cannot be read). */
export async function rosbag2SqliteRefusal(path: string): Promise<string> {
  const name = basename(path);
  const outUri = `${basename(path, extname(path))}_mcap`;
  const convert =
    `Convert it to MCAP with \`ros2 bag convert -i ${name} -o to_mcap.yaml\`, where to_mcap.yaml reads ` +
    `"output_bags: [{uri: ${outUri}, storage_id: mcap}]", then review the .mcap file in ${outUri}/.`;
  const withoutDefinitions =
    "it has no message_definitions table (as Humble and earlier write them): `ros2 bag convert` takes each type's definition from the installed message packages, so run it where they are installed (source the workspace that built them)";
  const withDefinitions = (count: number | undefined) =>
    `it carries its message definitions (a message_definitions table${count === undefined ? '' : ` of ${count} type${count === 1 ? '' : 's'}`}, as Iron and later write them): it converts without the message packages, and a reader could decode it from the file alone (Reins does not read SQLite bags)`;
  let facts: Rosbag2SqliteFacts;
  try {
    facts = await readRosbag2SqliteFacts(path);
  } catch (error) {
    return (
      `${name} is an SQLite file, not a log Reins can review, and its tables cannot be read (${(error as Error).message}). ` +
      `If it is a ROS 2 bag (.db3), Reins reviews MCAP instead. ${convert} If the bag is from Iron or later, ${withDefinitions(undefined)}; if it is from Humble or earlier, ${withoutDefinitions}.`
    );
  }
  const topics = `${facts.topics.length} topic${facts.topics.length === 1 ? '' : 's'}${facts.rosDistro === undefined ? '' : `, written by ROS 2 ${facts.rosDistro}`}`;
  const which = facts.definedTypes === undefined ? withoutDefinitions : withDefinitions(facts.definedTypes);
  return `${name} is a ROS 2 bag in SQLite storage (.db3, ${topics}); Reins reviews MCAP, the storage ROS 2 records in by default since Iron. ${convert} This bag: ${which}.`;
}
