// The committed default encoders (models/manifest.json) load as the core loads them, pass every check
// (sha256, input and output against the manifest, a trial run), and encode the simulated robot's
// frames into a finite embedding with every modality present.
import { MODALITIES } from '../../main/core/perception.ts';
import type { ObservationFrame } from '../../main/core/frame.ts';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TOPIC_MAP } from '../../main/core/link.ts';
import { twistFromDrive } from '../../main/core/messages.ts';
import { Synchroniser } from '../../main/loop/synchroniser.ts';
import { DEFAULT_ENCODER_SHAPES } from '../../main/perception/defaultEncoders.ts';
import { parseEncoderManifest } from '../../main/perception/manifest.ts';
import { DEFAULT_MANIFEST_PATH, loadPerception, type OnnxPerception } from '../../main/perception/onnxPerception.ts';
import { createSimLink } from '../../main/sim/lockstepLink.ts';

let perception: OnnxPerception;
beforeAll(async () => {
  perception = await loadPerception(DEFAULT_MANIFEST_PATH, { provider: 'cpu' });
});
afterAll(() => perception?.close());

/** Frames at 10 Hz while the robot turns on the spot, so the camera's view keeps changing. */
function turningFrames(count: number): ObservationFrame[] {
  const link = createSimLink({ arenaSeed: 3, episodeSeed: 3, epochMs: 0 });
  const synchroniser = new Synchroniser(link, DEFAULT_TOPIC_MAP);
  const frames: ObservationFrame[] = [];
  for (let i = 1; i <= count + 3; i++) {
    link.publish(DEFAULT_TOPIC_MAP.command, twistFromDrive({ linearMps: 0, angularRadps: 1 }));
    link.advance(0.1);
    if (i > 3) frames.push(synchroniser.frame(i * 100));
  }
  synchroniser.close();
  void link.close();
  return frames;
}

describe('the default encoders', () => {
  it('load with every check passed, in the default shapes and the 256-float layout', () => {
    const manifest = parseEncoderManifest(readFileSync(DEFAULT_MANIFEST_PATH, 'utf8'), DEFAULT_MANIFEST_PATH);
    expect(perception.alerts()).toEqual([]);
    expect(perception.version).toBe(manifest.version);
    expect(perception.embeddingSize).toBe(256);
    // Proprioception reads the IMU and the wheels over the whole tick, and each modality's liveness has its slot (issue 30).
    expect(manifest.fusion.slots).toMatchObject({ proprio: 23, liveness: 6 });
    expect(manifest.encoders.proprio?.preprocessing.fields).toEqual(
      expect.arrayContaining(['accel-x-peak-mps2', 'accel-y-peak-mps2', 'wheel-left-mean-radps']),
    );
    for (const modality of MODALITIES) {
      expect(manifest.encoders[modality]?.input.shape).toEqual([1, ...DEFAULT_ENCODER_SHAPES[modality].inputShape]);
    }
    expect(perception.status().modalities.map((m) => m.state)).toEqual(['no-data', 'no-data', 'no-data']);
  });

  it("encode the simulated robot's frames: every modality present, every value finite, the view changing the camera's part", async () => {
    const embeddings = [];
    for (const frame of turningFrames(10)) embeddings.push(await perception.encode(frame, { linearMps: 0, angularRadps: 1 }));
    for (const { values, mask } of embeddings) {
      expect(mask).toEqual({ camera: true, lidar: true, proprio: true });
      expect(values.every(Number.isFinite)).toBe(true);
    }
    expect(embeddings[0]!.values.slice(0, 160)).not.toEqual(embeddings.at(-1)!.values.slice(0, 160));
    // Turning, the camera's picture changes from tick to tick: its liveness says so from the second frame on.
    const camera = perception.slots.find((slot) => slot.name === 'liveness-camera')!;
    for (const { values } of embeddings.slice(1)) expect(values[camera.offset]).toBeGreaterThan(0.3);
    expect(perception.status().modalities.map((m) => m.state)).toEqual(['on', 'on', 'on']);
  });
});
