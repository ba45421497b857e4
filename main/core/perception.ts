// What perception is to the rest of the core: one ObservationFrame in, one embedding out, from one
// ONNX encoder per modality and a fixed fusion layout (DESIGN §2 step 3). The world model, the policy and the memory all read this embedding.
import type { ObservationFrame } from './frame.ts';
import type { CoreAlert } from './alert.ts';
import type { DriveCommand } from './messages.ts';

/** The encoders' modalities, in the fused embedding's order. */
export const MODALITIES = ['camera', 'lidar', 'proprio'] as const;
export type Modality = (typeof MODALITIES)[number];

/** Which modalities were encoded this tick; a missing one is zeros in `values`, never old data. */
export type ModalityMask = Record<Modality, boolean>;

export interface Embedding {
  values: Float32Array;
  mask: ModalityMask;
}

export type ExecutionProvider = 'cpu' | 'cuda';

/**
 * on: encoded at the last tick. no-data: the encoder is loaded but its stream was missing or stale.
 * off: the encoder was refused or failed (see `problem`). not-configured: the manifest has no entry.
 */
export type ModalityState = 'on' | 'no-data' | 'off' | 'not-configured';

export interface ModalityStatus {
  modality: Modality;
  state: ModalityState;
  /** The encoder file, when the manifest names one. */
  file?: string;
  /** Where the encoder runs, once it has loaded. */
  provider?: ExecutionProvider;
  /** Why the modality is off. */
  problem?: string;
}

export interface PerceptionStatus {
  /** The encoder manifest's version. */
  version: string;
  /** Why an encoder runs on the CPU although a GPU was asked for; absent when nothing to say. */
  providerNote?: string;
  intraOpThreads: number;
  interOpThreads: number;
  modalities: ModalityStatus[];
}

/** Where one modality sits in the fused embedding (the presence flags are the slot named 'mask'). */
export interface EmbeddingSlot {
  name: string;
  offset: number;
  size: number;
}

export interface Perception {
  /** Part of every memory row: embeddings of different versions are never mixed. */
  readonly version: string;
  readonly embeddingSize: number;
  /** The embedding's layout, slot by slot, covering it whole. */
  readonly slots: readonly EmbeddingSlot[];
  /** Never rejects for a bad frame or a failing encoder: that modality is zeros and an alert says why. */
  encode(frame: ObservationFrame, lastCommand: DriveCommand): Promise<Embedding>;
  status(): PerceptionStatus;
  /** Keyed alerts for the operator (an encoder refused or failing, an input it could not read). */
  alerts(): CoreAlert[];
  close(): Promise<void>;
}
