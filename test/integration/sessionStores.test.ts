// A running core keeps its session: the streams and commands in an MCAP recording, and every tick as a
// memory row that points into that recording and carries the world model's surprise.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Memory } from '../../main/memory/memory.ts';
import { nearestMoments } from '../../main/memory/tickSearch.ts';
import { RecordingReader } from '../../main/recording/recordingReader.ts';
import { startCoreProcess, type CoreProcess } from '../support/coreProcess.ts';
import { testEncoderManifest } from '../support/testEncoders.ts';

let core: CoreProcess | undefined;
const folders: string[] = [];
afterEach(async () => {
  await core?.stop();
  core = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('reins start keeps the session', () => {
  it('records the streams to MCAP and every tick to memory, pointing at the recording', async () => {
    const root = mkdtempSync(join(tmpdir(), 'reins-session-'));
    folders.push(root);
    const recordings = join(root, 'recordings');
    const memoryUri = join(root, 'memory');
    core = await startCoreProcess(['--recordings', recordings, '--memory', memoryUri]);
    const encoderVersion = (JSON.parse(readFileSync(testEncoderManifest(), 'utf8')) as { version: string }).version;

    // The stores open before the UI is served, so the recording is there as soon as the core is.
    const files = readdirSync(recordings).filter((name) => name.endsWith('.mcap'));
    expect(files).toHaveLength(1);

    // Ticks reach the memory in batches off the loop. A LanceDB table does not follow another
    // process's writes, so each look opens the memory afresh.
    const countTicks = async () => {
      const memory = await Memory.open({ uri: memoryUri });
      try {
        return await (await memory.ticks({ encoderVersion, embeddingSize: 256, distance: 'l2' })).countRows();
      } finally {
        await memory.close();
      }
    };
    const deadline = Date.now() + 15_000;
    while ((await countTicks()) < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countTicks()).toBeGreaterThanOrEqual(5);
    // Stopping flushes the writer and closes the recording.
    expect(await core.stop()).toBe(0);
    core = undefined;

    const reader = await RecordingReader.open(join(recordings, files[0]!));
    const topics = new Set<string>();
    for await (const message of reader.messages()) topics.add(message.topic);
    // The sensors, and the world model's surprise at each tick, for a review to find what mattered.
    expect([...topics]).toEqual(expect.arrayContaining(['/camera/image_raw', '/scan', '/joint_states', '/imu', '/odom', '/reins/surprise']));

    const memory = await Memory.open({ uri: memoryUri });
    try {
      const store = await memory.ticks({ encoderVersion, embeddingSize: 256, distance: 'l2' });
      expect(await store.countRows()).toBeGreaterThanOrEqual(5);
      const moments = await nearestMoments(store, { embedding: new Float32Array(256) }, { k: 3 });
      expect(moments).toHaveLength(3);
      for (const moment of moments) {
        expect(moment.mcapFile).toBe(join(recordings, files[0]!));
        expect(moment.mcapLogTimeNs).toBeGreaterThan(0n);
        // The world model filtered every tick: the tick's surprise is kept.
        expect(moment.surpriseNats).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await memory.close();
    }
    // A whole core with its world model starts, ticks and stops here: past vitest's 20 s default on a
    // loaded 2-core machine (it took 10.8 s and, beside the rest of the unit run, 20+ s).
  }, 45_000);
});
