// The Perception the core runs: the manifest's ONNX encoders, one per modality, fused into one
// embedding. An encoder that is refused at load or fails later turns its modality off (zeros and a 0
// flag), raises a keyed alert that says which file and why, and the rest runs on.
import type { ObservationFrame } from '../core/frame.ts';
import type { CoreAlert } from '../core/alert.ts';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DriveCommand } from '../core/messages.ts';
import { displayPath, EncoderSession } from './encoderSession.ts';
import { DEFAULT_THREADS, type ProviderPreference, type ThreadSettings } from './executionProvider.ts';
import { Fusion } from './fusion.ts';
import { fusionLayout, parseEncoderManifest, type EncoderEntry, type EncoderManifest } from './manifest.ts';
import { prepareModalityInput } from './modalityInput.ts';
import { LivenessTracker, livenessSlots } from './liveness.ts';
import {
  type Embedding,
  type EmbeddingSlot,
  type ModalityMask,
  type ModalityStatus,
  type Perception,
  type PerceptionStatus,
  MODALITIES,
  type Modality,
} from '../core/perception.ts';

/** `models/manifest.json` at the repository root: the default encoders. */
export const DEFAULT_MANIFEST_PATH = fileURLToPath(new URL('../../models/manifest.json', import.meta.url));

export interface PerceptionOptions extends ThreadSettings {
  provider: ProviderPreference;
}

const MODALITY_NAME: Readonly<Record<Modality, { title: string; noun: string }>> = {
  camera: { title: 'Camera', noun: 'the camera' },
  lidar: { title: 'LiDAR', noun: 'the LiDAR' },
  proprio: { title: 'Proprioception', noun: 'proprioception' },
};

interface ModalityEncoder {
  modality: Modality;
  entry: EncoderEntry | undefined;
  /** The encoder file, resolved against the manifest's folder. */
  path: string | undefined;
  session: EncoderSession | undefined;
  /** Why the modality is off: refused at load, or failed at a run. */
  problem: string | undefined;
  /** Encoded at the last tick. */
  present: boolean;
}

/** Reads and validates a manifest; throws an Error naming the file and the problem. */
export async function readEncoderManifest(path: string): Promise<EncoderManifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`encoder manifest ${displayPath(path)} is missing (--encoders PATH uses another manifest)`);
    }
    throw new Error(`encoder manifest ${displayPath(path)} could not be read: ${(error as Error).message}`);
  }
  return parseEncoderManifest(text, displayPath(path));
}

/**
 * Loads the manifest's encoders. A missing or invalid manifest throws (the core cannot start without
 * knowing its embedding); a bad encoder only turns its modality off, with an alert.
 */
/** The settings encoders run with: CUDA when it loads, and the measured thread defaults, unless told otherwise. */
export function perceptionSettings(options: Partial<PerceptionOptions> = {}): PerceptionOptions {
  return { provider: 'auto', ...DEFAULT_THREADS, ...options };
}

/** Where a manifest's encoder file is: beside the manifest. */
function encoderPath(manifestPath: string, entry: EncoderEntry): string {
  return resolve(dirname(resolve(manifestPath)), entry.file);
}

/** One modality's encoder as perception loads it (a bench may time it alone). */
export function loadEncoderSession(manifestPath: string, entry: EncoderEntry, modality: Modality, settings: PerceptionOptions): Promise<EncoderSession> {
  return EncoderSession.load({ modality, entry, path: encoderPath(manifestPath, entry), provider: settings.provider, threads: settings });
}

export async function loadPerception(manifestPath: string = DEFAULT_MANIFEST_PATH, options: Partial<PerceptionOptions> = {}): Promise<OnnxPerception> {
  const manifest = await readEncoderManifest(manifestPath);
  const settings = perceptionSettings(options);
  const encoders = await Promise.all(
    MODALITIES.map(async (modality): Promise<ModalityEncoder> => {
      const entry = manifest.encoders[modality];
      const encoder: ModalityEncoder = {
        modality,
        entry,
        path: entry && encoderPath(manifestPath, entry),
        session: undefined,
        problem: undefined,
        present: false,
      };
      if (!entry || !encoder.path) return encoder;
      try {
        encoder.session = await loadEncoderSession(manifestPath, entry, modality, settings);
      } catch (error) {
        encoder.problem = (error as Error).message;
      }
      return encoder;
    }),
  );
  return new OnnxPerception(manifest, encoders, settings);
}

export class OnnxPerception implements Perception {
  readonly version: string;
  readonly embeddingSize: number;
  readonly slots: readonly EmbeddingSlot[];
  private readonly fusion: Fusion;
  /** Where the liveness slot starts, for a manifest that has one. */
  private readonly livenessOffset: number | undefined;
  private readonly liveness = new LivenessTracker();
  private readonly alertsByKey = new Map<string, CoreAlert>();
  private closed = false;

  constructor(
    manifest: EncoderManifest,
    private readonly encoders: readonly ModalityEncoder[],
    private readonly settings: PerceptionOptions,
  ) {
    this.version = manifest.version;
    const layout = fusionLayout(manifest);
    this.livenessOffset = layout.liveness?.offset;
    this.slots = Object.entries(layout).flatMap(([name, { offset, size }]) => (name === 'liveness' ? livenessSlots(offset) : [{ name, offset, size }]));
    this.embeddingSize = manifest.embeddingSize;
    this.fusion = new Fusion(manifest, Object.fromEntries(encoders.flatMap((e) => (e.entry ? [[e.modality, e.entry.output.size]] : []))));
    for (const encoder of encoders) if (encoder.problem) this.raiseOff(encoder);
  }

  async encode(frame: ObservationFrame, lastCommand: DriveCommand): Promise<Embedding> {
    if (this.closed) throw new Error('perception is closed: its encoders were released');
    // A new array each tick: the embedding outlives the tick (memory rows, the tick report).
    const values = new Float32Array(this.embeddingSize);
    const mask: ModalityMask = { camera: false, lidar: false, proprio: false };
    // All inputs first, then every run started at once: onnxruntime-node runs each one synchronously
    // in a setImmediate callback, so started together they run back to back in one event-loop turn
    // instead of letting other I/O in between them (and into the tick's latency).
    const ready = this.encoders.map((encoder) => this.prepareInput(encoder, frame, lastCommand));
    const running = Promise.all(this.encoders.map((encoder, i) => (ready[i] && encoder.session ? this.run(encoder, encoder.session) : undefined)));
    if (this.livenessOffset !== undefined) {
      const inputs = Object.fromEntries(
        this.encoders.flatMap((encoder, i) => (ready[i] && encoder.session ? [[encoder.modality, encoder.session.input]] : [])),
      );
      this.liveness.write(frame, inputs, values, this.livenessOffset);
    }
    const outputs = await running;
    this.encoders.forEach((encoder, i) => {
      mask[encoder.modality] = this.fusion.write(encoder.modality, outputs[i], values);
      // A modality missing from the embedding is missing from the liveness slot too, even when its
      // input was ready and only its encoder failed.
      if (!mask[encoder.modality] && this.livenessOffset !== undefined) this.liveness.forget(encoder.modality, values, this.livenessOffset);
    });
    return { values, mask };
  }

  status(): PerceptionStatus {
    const providerNote = this.encoders.find((encoder) => encoder.session?.providerNote)?.session?.providerNote;
    return {
      version: this.version,
      ...(providerNote ? { providerNote } : {}),
      intraOpThreads: this.settings.intraOpThreads,
      interOpThreads: this.settings.interOpThreads,
      modalities: this.encoders.map((encoder) => modalityStatus(encoder)),
    };
  }

  alerts(): CoreAlert[] {
    return [...this.alertsByKey.values()];
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.encoders.map((encoder) => encoder.session?.close()));
  }

  /** Writes the encoder's input from the frame; false when it has nothing to encode this tick. */
  private prepareInput(encoder: ModalityEncoder, frame: ObservationFrame, lastCommand: DriveCommand): boolean {
    encoder.present = false;
    const { entry, session } = encoder;
    if (!entry || !session || encoder.problem) return false;
    const inputKey = `perception-input-${encoder.modality}`;
    try {
      const prepared = prepareModalityInput(entry, frame, lastCommand, session.input);
      this.alertsByKey.delete(inputKey);
      return prepared;
    } catch (error) {
      // Bad input from the robot: this tick goes without the modality; the next readable message brings it back.
      const { title, noun } = MODALITY_NAME[encoder.modality];
      this.alertsByKey.set(inputKey, {
        key: inputKey,
        severity: 'warn',
        message: `${title} input could not be encoded: ${(error as Error).message}`,
        hint: `Perception runs on without ${noun} until its stream sends readable messages; check what the robot publishes there.`,
      });
      return false;
    }
  }

  private async run(encoder: ModalityEncoder, session: EncoderSession): Promise<Float32Array | undefined> {
    try {
      const output = await session.run();
      encoder.present = true;
      return output;
    } catch (error) {
      // A frozen encoder that fails on prepared (always finite) input is broken: off until replaced.
      encoder.problem = (error as Error).message;
      this.raiseOff(encoder);
      return undefined;
    }
  }

  private raiseOff(encoder: ModalityEncoder): void {
    const { title, noun } = MODALITY_NAME[encoder.modality];
    const key = `perception-${encoder.modality}`;
    this.alertsByKey.set(key, {
      key,
      severity: 'error',
      message: `${title} encoder off: ${encoder.problem}`,
      hint: `Perception runs on without ${noun}; fix or replace ${encoder.path ? displayPath(encoder.path) : 'its encoder file'} and restart.`,
    });
  }
}

function modalityStatus(encoder: ModalityEncoder): ModalityStatus {
  const file = encoder.path ? { file: displayPath(encoder.path) } : {};
  const provider = encoder.session ? { provider: encoder.session.provider } : {};
  if (!encoder.entry) return { modality: encoder.modality, state: 'not-configured' };
  if (encoder.problem) return { modality: encoder.modality, state: 'off', ...file, ...provider, problem: encoder.problem };
  return { modality: encoder.modality, state: encoder.present ? 'on' : 'no-data', ...file, ...provider };
}
