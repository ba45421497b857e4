// The encoders beside the fused perception that openEncoders loads: one encoder alone, loaded and fed
// as perception loads and feeds it (what the perception bench times per modality); randomly
// initialised encoders of the default shapes (the untrained floor); and the probes that say how
// useful an embedding is, scored on the perception a session opens.
import { readFileSync } from 'node:fs';
import type { ObservationFrame } from '../core/frame.ts';
import type { DriveCommand } from '../core/messages.ts';
import { MODALITIES, type Modality } from '../core/perception.ts';
import { DEFAULT_ENCODER_SHAPES, randomlyInitialised } from '../perception/defaultEncoders.ts';
import { scoreProbes, type ProbeSample, type ProbeScores } from '../perception/embeddingProbes.ts';
import { writeEncoderSet, writeRandomEncoderSet } from '../perception/encoderSet.ts';
import { cudaProviderInstalled } from '../perception/executionProvider.ts';
import { parseEncoderManifest } from '../perception/manifest.ts';
import { prepareModalityInput } from '../perception/modalityInput.ts';
import { loadEncoderSession, perceptionSettings, readEncoderManifest } from '../perception/onnxPerception.ts';
import { openEncoders, type PerceptionOptions } from './encoders.ts';

export type { ProbeScores };

/** One modality's encoder on its own: its input prepared from a frame, and its run. */
export interface EncoderAlone {
  readonly modality: Modality;
  /** Prepares the input and starts the run; undefined when the frame has nothing for this encoder. */
  encode(frame: ObservationFrame, lastCommand: DriveCommand): Promise<Float32Array> | undefined;
  close(): Promise<void>;
}

/** Whether the encoders may run on the GPU here: onnxruntime-node's CUDA provider is installed. */
export function gpuEncodersInstalled(): boolean {
  return cudaProviderInstalled();
}

/**
 * A manifest's encoder for one modality, with the settings perception gives it (the default threads
 * unless told); undefined when the manifest has no encoder for it. Throws when the encoder is refused.
 */
export async function openEncoderAlone(manifestPath: string, modality: Modality, options: Partial<PerceptionOptions> = {}): Promise<EncoderAlone | undefined> {
  const manifest = await readEncoderManifest(manifestPath);
  const entry = manifest.encoders[modality];
  if (!entry) return undefined;
  const session = await loadEncoderSession(manifestPath, entry, modality, perceptionSettings(options));
  return {
    modality,
    encode: (frame, lastCommand) => (prepareModalityInput(entry, frame, lastCommand, session.input) ? session.run() : undefined),
    close: () => session.close(),
  };
}

/** The default shapes and preprocessing, randomly initialised (He) from `seed`; returns the manifest's path. */
export function writeRandomEncoders(folder: string, seed: number): string {
  return writeRandomEncoderSet(folder, seed);
}

/** Randomly initialised networks of the default shapes, with a manifest's own preprocessing and fusion: that manifest's untrained floor. */
export function writeRandomEncodersLike(manifestPath: string, folder: string): string {
  const manifest = parseEncoderManifest(readFileSync(manifestPath, 'utf8'), manifestPath);
  const modalities = MODALITIES.filter((modality) => manifest.encoders[modality] !== undefined);
  return writeEncoderSet(folder, {
    version: `${manifest.version}-random-init`,
    nets: Object.fromEntries(modalities.map((modality, i) => [modality, randomlyInitialised(DEFAULT_ENCODER_SHAPES[modality], 1000 + i)])),
    preprocessing: Object.fromEntries(modalities.map((modality) => [modality, manifest.encoders[modality]!.preprocessing])),
    slots: manifest.fusion.slots,
    projectionSeed: manifest.fusion.projectionSeed,
  });
}

/** A frame to probe with, and the truth the probes should read from its embedding. */
export interface ProbeView {
  frame: ObservationFrame;
  command: DriveCommand;
  truth: Omit<ProbeSample, 'embedding'>;
}

/** Linear probes fitted on the embeddings of one set of views and scored on another, with a manifest's encoders as a session opens them. */
export async function scorePerceptionProbes(manifestPath: string, fitViews: readonly ProbeView[], scoreViews: readonly ProbeView[]): Promise<ProbeScores> {
  const perception = await openEncoders(manifestPath);
  try {
    const samples = async (views: readonly ProbeView[]): Promise<ProbeSample[]> => {
      const found: ProbeSample[] = [];
      for (const view of views) {
        const embedding = await perception.encode(view.frame, view.command);
        found.push({ embedding: Float32Array.from(embedding.values), ...view.truth });
      }
      return found;
    };
    return scoreProbes(await samples(fitViews), await samples(scoreViews));
  } finally {
    await perception.close();
  }
}
