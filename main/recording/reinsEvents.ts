// Reins' own events in the log: `json` messages with a `jsonschema` schema, so Foxglove shows them as
// structured fields. One topic per kind of event.
import type { LinkAlert } from '../links/link.ts';
import type { DriveCommand } from '../links/messages.ts';

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
  alerts: LinkAlert[];
}

/** What the operator did: a key, a button, a takeover, a rating; `detail` is free-form. */
export interface OperatorInputEvent {
  action: string;
  detail?: Record<string, unknown>;
}

/** The world model's view of one tick, so a review can find the moments that surprised it. */
export interface SurpriseEvent {
  /** What the cockpit showed: the most surprised modality's error over its usual error, held 1 s. */
  score: number;
  /** The modality behind this tick's score. */
  modality: string;
  surpriseNats: number;
  predictionError: number;
  worldModelVersion: string;
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
          properties: { key: { type: 'string' }, severity: { type: 'string', enum: ['info', 'warn', 'error'] }, message: { type: 'string' }, hint: { type: 'string' } },
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

export const SURPRISE_CHANNEL: EventChannel = {
  topic: '/reins/surprise',
  schemaName: 'reins.Surprise',
  jsonSchema: {
    type: 'object',
    properties: {
      score: { type: 'number' },
      modality: { type: 'string' },
      surpriseNats: { type: 'number' },
      predictionError: { type: 'number' },
      worldModelVersion: { type: 'string' },
    },
    required: ['score', 'modality', 'surpriseNats', 'predictionError', 'worldModelVersion'],
  },
};

/** Messages of kinds with no standard ROS type here (analog voltages), kept as JSON. */
export function jsonChannelFor(topic: string, kind: string): EventChannel {
  return { topic, schemaName: `reins.${kind}`, jsonSchema: { type: 'object' } };
}
