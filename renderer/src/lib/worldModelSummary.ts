// The world model's status in words for the status panel.
import type { WorldModelStatus } from './contract.ts';
import type { Tone } from './labels.ts';

const WAITING_FOR: Readonly<Record<string, string>> = {
  'not-enough-ticks': 'waiting for enough ticks in memory',
  'replay-ratio': 'waiting for new ticks (replay ratio met)',
  paused: 'paused',
  'after-errors': 'held after errors',
};

export function learnerSummary(status: WorldModelStatus): string {
  const steps = `${status.trainSteps.toLocaleString('en')} steps`;
  switch (status.learner) {
    case 'off':
      return 'not learning';
    case 'starting':
      return 'learner starting';
    case 'training':
      return `learning · ${steps}`;
    case 'waiting':
      return `${steps} · ${WAITING_FOR[status.waitingFor ?? ''] ?? 'waiting'}`;
    case 'paused':
      return `${steps} · paused`;
    case 'stopping':
    case 'stopped':
      return `${steps} · learner ${status.learner}`;
    case 'failed':
      return `learner failed after ${steps}`;
  }
}

export function learnerTone(status: WorldModelStatus): Tone {
  if (status.learner === 'failed') return 'error';
  if (status.learner === 'training' || status.learner === 'waiting') return 'ok';
  return 'neutral';
}

/** A figure with `digits` decimals, or a dash before there is one. */
export function formatFigure(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? '—' : value.toFixed(digits);
}
