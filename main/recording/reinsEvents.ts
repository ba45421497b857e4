// Reins' own events in the log: `json` messages with a `jsonschema` schema, so Foxglove shows them as
// structured fields. One topic per kind of event.
import type { CoreAlert } from '../core/alert.ts';
import type { DriveCommand } from '../core/messages.ts';
import type { CorrectionRow } from '../memory/corrections.ts';

export interface CommandSentEvent {
  /** Who drove: the policy, the operator, nobody (`idle`, the stop at the end of driving), or the e-stop. */
  driver: 'idle' | 'operator' | 'policy' | 'estopped';
  command: DriveCommand;
  requested: DriveCommand;
  clipped: boolean;
  delivered: boolean;
  atMs: number;
}

export interface AlertsEvent {
  alerts: CoreAlert[];
}

/** What the operator did: a key, a button, a takeover, a rating; `detail` is free-form. */
export interface OperatorInputEvent {
  action: string;
  detail?: Record<string, unknown>;
}

/** The world model's view of one tick, so a review can find the moments that surprised it. */
export interface SurpriseEvent {
  /** What the cockpit showed: the most surprised modality's error over its usual error, held 1 s. */
  surpriseRatio: number;
  /** The modality behind this tick's ratio. */
  modality: string;
  /** The tick's KL(posterior ‖ prior). */
  surpriseNats: number;
  predictionError: number;
  worldModelVersion: string;
}

/**
 * A recorded `/reins/surprise` value, in either shape: logs written before the rename carry the
 * ratio as `score`. Undefined when it holds no finite ratio (a damaged or foreign message).
 */
export function readSurpriseEvent(value: unknown): SurpriseEvent | undefined {
  const event = value as (Partial<SurpriseEvent> & { score?: unknown }) | undefined;
  const surpriseRatio = event?.surpriseRatio ?? event?.score;
  if (typeof surpriseRatio !== 'number' || !Number.isFinite(surpriseRatio)) return undefined;
  const { score: _legacyRatio, ...fields } = event!;
  return { ...fields, surpriseRatio } as SurpriseEvent;
}

/** Something the operator taught (memory's corrections row, as written): an intervention, an answer, a rating, an undo. */
export type FeedbackEvent = CorrectionRow;

/** One control tick as memory keeps it, so a review can place feedback (named by step) in time and plot the reward estimate. */
export interface TickEvent {
  episodeId: string;
  step: number;
  driver: 'idle' | 'operator' | 'policy' | 'estopped';
  policyVersion: string;
  /** The reward model's estimate for the tick; absent when it had none. */
  rewardEstimate?: number;
}

export interface EventChannel {
  topic: string;
  schemaName: string;
  jsonSchema: Record<string, unknown>;
}

const driveCommandSchema = {
  type: 'object',
  properties: { linearMps: { type: 'number' }, angularRadps: { type: 'number' } },
  required: ['linearMps', 'angularRadps'],
};

export const COMMAND_SENT_CHANNEL: EventChannel = {
  topic: '/reins/command_sent',
  schemaName: 'reins.CommandSent',
  jsonSchema: {
    type: 'object',
    properties: {
      driver: { type: 'string', enum: ['idle', 'operator', 'policy', 'estopped'] },
      command: driveCommandSchema,
      requested: driveCommandSchema,
      clipped: { type: 'boolean' },
      delivered: { type: 'boolean' },
      atMs: { type: 'number' },
    },
    required: ['driver', 'command', 'requested', 'clipped', 'delivered', 'atMs'],
  },
};

export const ALERTS_CHANNEL: EventChannel = {
  topic: '/reins/alerts',
  schemaName: 'reins.Alerts',
  jsonSchema: {
    type: 'object',
    properties: {
      alerts: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            key: { type: 'string' },
            severity: { type: 'string', enum: ['info', 'warn', 'error'] },
            message: { type: 'string' },
            hint: { type: 'string' },
          },
          required: ['key', 'severity', 'message'],
        },
      },
    },
    required: ['alerts'],
  },
};

export const OPERATOR_INPUT_CHANNEL: EventChannel = {
  topic: '/reins/operator_input',
  schemaName: 'reins.OperatorInput',
  jsonSchema: { type: 'object', properties: { action: { type: 'string' }, detail: { type: 'object' } }, required: ['action'] },
};

// Logs written before the rename hold this schema with `score` for `surpriseRatio` (each log keeps its
// own copy of the schema); readSurpriseEvent reads both.
export const SURPRISE_CHANNEL: EventChannel = {
  topic: '/reins/surprise',
  schemaName: 'reins.Surprise',
  jsonSchema: {
    type: 'object',
    properties: {
      surpriseRatio: { type: 'number' },
      modality: { type: 'string' },
      surpriseNats: { type: 'number' },
      predictionError: { type: 'number' },
      worldModelVersion: { type: 'string' },
    },
    required: ['surpriseRatio', 'modality', 'surpriseNats', 'predictionError', 'worldModelVersion'],
  },
};

export const FEEDBACK_CHANNEL: EventChannel = {
  topic: '/reins/feedback',
  schemaName: 'reins.Feedback',
  jsonSchema: {
    type: 'object',
    properties: {
      correctionId: { type: 'string' },
      kind: { type: 'string', enum: ['intervention', 'preference', 'rating', 'undo'] },
      atMs: { type: 'number' },
      episodeId: { type: 'string' },
      spanStartStep: { type: 'integer' },
      spanEndStep: { type: 'integer' },
      otherEpisodeId: { type: 'string' },
      otherSpanStartStep: { type: 'integer' },
      otherSpanEndStep: { type: 'integer' },
      question: { type: 'string' },
      answer: { type: 'string', enum: ['first', 'second', 'equal', 'unsure'] },
      rating: { type: 'integer', enum: [1, -1] },
      undoesCorrectionId: { type: 'string' },
      answeredBy: { type: 'string' },
    },
    required: ['correctionId', 'kind', 'atMs', 'episodeId', 'spanStartStep', 'spanEndStep', 'answeredBy'],
  },
};

export const TICK_CHANNEL: EventChannel = {
  topic: '/reins/tick',
  schemaName: 'reins.Tick',
  jsonSchema: {
    type: 'object',
    properties: {
      episodeId: { type: 'string' },
      step: { type: 'integer' },
      driver: { type: 'string', enum: ['idle', 'operator', 'policy', 'estopped'] },
      policyVersion: { type: 'string' },
      rewardEstimate: { type: 'number' },
    },
    required: ['episodeId', 'step', 'driver', 'policyVersion'],
  },
};

/** Messages of kinds with no standard ROS type here (analog voltages), kept as JSON. */
export function jsonChannelFor(topic: string, kind: string): EventChannel {
  return { topic, schemaName: `reins.${kind}`, jsonSchema: { type: 'object' } };
}
