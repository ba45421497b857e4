// Real ONNX encoders for tests that run the whole core: randomly initialised networks of the default
// shapes, written once per test process to a temporary folder, with their manifest.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeRandomEncoderSet } from '../../main/perception/encoderSet.ts';

let manifestPath: string | undefined;

/** The path of a manifest of working encoders (the same folder for the whole test process). */
export function testEncoderManifest(): string {
  if (manifestPath === undefined) {
    const folder = mkdtempSync(join(tmpdir(), 'reins-test-encoders-'));
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
    manifestPath = writeRandomEncoderSet(folder, 5);
  }
  return manifestPath;
}
