// A recorder in its own process for the crash test: records scans as fast as it can and prints
// `flushed CHUNKS MESSAGES` after every finished chunk, until the test SIGKILLs it.
import { Recorder } from '../../main/recording/recorder.ts';

const path = process.argv[2]!;
const T0_MS = 1_700_000_000_000;
const recorder = await Recorder.open({
  path,
  chunkBytes: 8192,
  onChunkWritten: ({ chunks, messages }) => process.stdout.write(`flushed ${chunks} ${messages}\n`),
});
let i = 0;
function burst(): void {
  for (let n = 0; n < 50; n++, i++) {
    const rangesM = new Float32Array(90).map((_, beam) => 1 + ((beam + i) % 7));
    recorder.record({
      topic: '/scan',
      receiveTimeMs: T0_MS + i,
      sourceTimeMs: T0_MS + i,
      msg: { kind: 'LaserScan', frameId: 'laser', angleMinRad: -1, angleMaxRad: 1, angleIncrementRad: 0.02, rangeMinM: 0.1, rangeMaxM: 10, rangesM },
    });
  }
  setTimeout(burst, 1);
}
burst();
