// How the encoders read on screen: where they run, with how many threads, and each modality's state.
import type { ModalityStatus, PerceptionStatus } from './contract.ts';
import type { Tone } from './labels.ts';

export const MODALITY_LABEL: Readonly<Record<ModalityStatus['modality'], string>> = {
  camera: 'Camera',
  lidar: 'LiDAR',
  proprio: 'Proprio',
};

export const MODALITY_STATE_LABEL: Readonly<Record<ModalityStatus['state'], string>> = {
  on: 'ON',
  'no-data': 'NO DATA',
  off: 'OFF',
  'not-configured': 'NONE',
};

export const MODALITY_STATE_TONE: Readonly<Record<ModalityStatus['state'], Tone>> = {
  on: 'ok',
  'no-data': 'warn',
  off: 'error',
  'not-configured': 'neutral',
};

const PROVIDER_LABEL = { cpu: 'CPU', cuda: 'CUDA' } as const;

/** "CPU", "CUDA", or "CUDA + CPU" when the encoders differ; "—" when none has loaded. */
export function providerSummary(perception: PerceptionStatus): string {
  const providers = new Set(perception.modalities.flatMap((m) => (m.provider ? [m.provider] : [])));
  const labels = (['cuda', 'cpu'] as const).filter((p) => providers.has(p)).map((p) => PROVIDER_LABEL[p]);
  return labels.length === 0 ? '—' : labels.join(' + ');
}

export function threadSummary(perception: PerceptionStatus): string {
  const plural = (n: number) => (n === 1 ? 'thread' : 'threads');
  return `${perception.intraOpThreads} intra-op ${plural(perception.intraOpThreads)}, ${perception.interOpThreads} inter-op`;
}
