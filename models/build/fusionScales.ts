// Sets the fusion's per-slot scales in a manifest: `npx tsx models/build/fusionScales.ts [--manifest PATH]`.
// Each slot is scaled so that its mean norm over views of the training arenas is its share of a
// moment's likeness: the LiDAR's picture of the surroundings counts most, the camera's (which also
// shows where this episode's goal stands) half as much, and proprioception — how the robot moves,
// not where it is — a quarter. Without this, proprioception's large raw outputs decided which
// moments looked alike, and "moments like this one" came from anywhere in the arena.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Received, RobotMessage } from '../../main/core/messages.ts';
import { fusionLayout, parseEncoderManifest, type EncoderManifest } from '../../main/perception/manifest.ts';
import { loadPerception } from '../../main/perception/onnxPerception.ts';
import { type Perception, MODALITIES, type Modality } from '../../main/core/perception.ts';
import { sampleViews } from '../../main/sim/viewSampler.ts';

export const FUSION_SHARES: Readonly<Record<Modality, number>> = { camera: 0.5, lidar: 1, proprio: 0.25 };
type ObservationFrame = Parameters<Perception['encode']>[0];

const ARENA_SEEDS = Array.from({ length: 10 }, (_, i) => 10_000 + i);

const sample = <M extends RobotMessage>(topic: string, msg: M): { received: Received<M>; ageMs: number } => ({
  received: { topic, receiveTimeMs: 0, sourceTimeMs: 0, msg },
  ageMs: 0,
});

/** The manifest with `fusion.scales` measured on training views (its other fields unchanged). */
export async function withFusionScales(manifestPath: string): Promise<EncoderManifest> {
  const manifest = parseEncoderManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  const unscaled = { ...manifest, fusion: { ...manifest.fusion, scales: undefined } };
  const layout = fusionLayout(unscaled);
  const temporary = `${manifestPath}.unscaled.json`;
  writeFileSync(temporary, JSON.stringify(unscaled));
  const perception = await loadPerception(temporary);
  const sums: Record<Modality, number> = { camera: 0, lidar: 0, proprio: 0 };
  let count = 0;
  try {
    for (const arenaSeed of ARENA_SEEDS) {
      for (const view of sampleViews({ arenaSeed, hues: 'training', episodes: 2, viewsPerEpisode: 50, seed: arenaSeed })) {
        const frame: ObservationFrame = {
          timeMs: 0,
          missing: [],
          camera: sample('/camera/image_raw', view.image),
          scan: sample('/scan', view.scan),
          joints: { ...sample('/joint_states', view.joints), sinceLastTick: view.jointsSinceLastTick },
          imu: { ...sample('/imu', view.imu), sinceLastTick: view.imuSinceLastTick },
        };
        const { values } = await perception.encode(frame, view.command);
        for (const modality of MODALITIES) {
          const { offset, size } = layout[modality];
          let squares = 0;
          for (let i = offset; i < offset + size; i++) squares += values[i]! ** 2;
          sums[modality] += Math.sqrt(squares);
        }
        count++;
      }
    }
  } finally {
    await perception.close();
    rmSync(temporary);
  }
  const scales = Object.fromEntries(MODALITIES.map((m) => [m, Number((FUSION_SHARES[m] / (sums[m] / count)).toPrecision(6))])) as Record<Modality, number>;
  return { ...manifest, fusion: { ...manifest.fusion, scales } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { manifest: { type: 'string', default: resolve(import.meta.dirname, '..', 'manifest.json') }, version: { type: 'string' } },
  });
  const path = values.manifest;
  const updated = await withFusionScales(path);
  const manifest = values.version ? { ...updated, version: values.version } : updated;
  writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(`fusion scales ${JSON.stringify(manifest.fusion.scales)} written to ${path} (version ${manifest.version})\n`);
}
