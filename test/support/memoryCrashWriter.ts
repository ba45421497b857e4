// The writing process of the crash test (test/integration/memoryCrash.test.ts): writes numbered
// ticks through a MemoryWriter, batch after batch, with maintenance compacting and cleaning up
// beside it, and prints `committed N` once flush() says batch N is on disk. It runs until killed.
import { Memory } from '../../main/memory/memory.ts';
import { MemoryWriter } from '../../main/memory/memoryWriter.ts';
import { CRASH_BATCH_ROWS, CRASH_SPACE, numberedTick } from './memoryTicks.ts';

const uri = process.argv[2];
if (!uri) throw new Error('usage: memoryCrashWriter.ts MEMORY_URI');
const memory = await Memory.open({ uri, maintenance: { periodMs: 20, keepVersionsMs: 0 } });
const writer = new MemoryWriter(await memory.ticks(CRASH_SPACE), { batchRows: CRASH_BATCH_ROWS, maxBatchRows: CRASH_BATCH_ROWS });
for (let batch = 0; ; batch++) {
  for (let i = 0; i < CRASH_BATCH_ROWS; i++) writer.append(numberedTick(batch * CRASH_BATCH_ROWS + i));
  await writer.flush();
  process.stdout.write(`committed ${batch}\n`);
}
