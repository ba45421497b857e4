// How states read on screen, and the tone (colour) each one gets.
import type { Driver, Presence } from './contract.ts';
import type { CoreLinkStatus } from './coreSocket.ts';

export type Tone = 'ok' | 'warn' | 'error' | 'neutral' | 'accent' | 'policy';

export const DRIVER_LABEL: Readonly<Record<Driver, string>> = {
  operator: 'Operator',
  policy: 'Policy',
  estopped: 'Stopped',
  idle: 'Idle',
};

export const DRIVER_TONE: Readonly<Record<Driver, Tone>> = {
  operator: 'accent',
  policy: 'policy',
  estopped: 'error',
  idle: 'neutral',
};

export const PRESENCE_TONE: Readonly<Record<Presence, Tone>> = {
  present: 'ok',
  connecting: 'warn',
  reconnecting: 'warn',
  error: 'error',
  closed: 'error',
};

/** The connection to the core reads as exactly one of three words; the cockpit is always (re)trying. */
export const CORE_LABEL: Readonly<Record<CoreLinkStatus, 'Connected' | 'Reconnecting' | 'Disconnected'>> = {
  connecting: 'Reconnecting',
  connected: 'Connected',
  disconnected: 'Disconnected',
};

export const CORE_TONE: Readonly<Record<CoreLinkStatus, Tone>> = {
  connecting: 'warn',
  connected: 'ok',
  disconnected: 'error',
};
