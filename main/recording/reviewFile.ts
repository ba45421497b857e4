// What `reins review FILE` opens, told apart by the file's first bytes: an MCAP log (reviewLog.ts:
// Reins' own, `ros2 bag`'s and other writers'), a ROS 1 bag (bagReviewLog.ts), or a rosbag2 folder
// holding one MCAP file. A ROS 2 `.db3` bag is refused with how to convert it (rosbag2Sqlite.ts).
import { open, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { openBagReviewLog } from './bagReviewLog.ts';
import { readBytes } from './logBlocks.ts';
import { openReviewLog, type ReviewableLog, type ReviewLogOptions } from './reviewLog.ts';
import { rosbag2SqliteRefusal } from './rosbag2Sqlite.ts';

const ROSBAG_V2 = '#ROSBAG V2.0\n';
const ROSBAG_ANY = '#ROSBAG V';
const SQLITE = 'SQLite format 3\0';

export async function openReviewFile(path: string, options: ReviewLogOptions = {}): Promise<ReviewableLog> {
  if ((await stat(path)).isDirectory()) return openReviewFile(await bagFolderFile(path), options);
  const start = await fileStart(path, SQLITE.length);
  if (start.startsWith(ROSBAG_V2)) return openBagReviewLog(path);
  if (start.startsWith(ROSBAG_ANY))
    throw new Error(`${basename(path)} is a ROS 1 bag of an older format (${start.slice(1, 12)}): Reins reads format 2.0; \`rosbag fix\` rewrites it`);
  if (start.startsWith(SQLITE)) throw new Error(await rosbag2SqliteRefusal(path));
  return openReviewLog(path, options);
}

async function fileStart(path: string, bytes: number): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const size = (await handle.stat()).size;
    return new TextDecoder('latin1').decode(await readBytes(handle, 0, Math.min(bytes, size)));
  } finally {
    await handle.close();
  }
}

/** The one log of a rosbag2 folder (`ros2 bag record -o NAME` writes NAME/NAME_0.mcap beside metadata.yaml). */
async function bagFolderFile(folder: string): Promise<string> {
  const logs = (await readdir(folder)).filter((name) => /\.(mcap|db3|bag)$/.test(name)).sort();
  if (logs.length === 1) return join(folder, logs[0]!);
  if (logs.length === 0) throw new Error(`${basename(folder)} is a folder with no .mcap, .db3 or .bag file in it`);
  throw new Error(`${basename(folder)} holds ${logs.length} logs (${logs.join(', ')}): name the one to review`);
}
