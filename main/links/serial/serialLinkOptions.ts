// What a SerialLink can be told, and what it assumes when it is not.
import { DEFAULT_TOPIC_MAP, type TopicMap } from '../../core/link.ts';
import { listSerialPorts } from './portDiscovery.ts';
import { openSerialPort, type OpenSerialTransport } from './serialTransport.ts';

export interface SerialLinkOptions {
  topicMap: TopicMap;
  /** Where AnalogInputs go; the topic map has no slot for them. */
  analogTopic: string;
  hostName: string;
  heartbeatPeriodMs: number;
  helloRetryMs: number;
  /** Unanswered HELLOs for this long raise an alert (retries go on). */
  handshakeAlertAfterMs: number;
  commandAckTimeoutMs: number;
  /** Waits between attempts to reopen a vanished port; the last one repeats. */
  reconnectDelaysMs: readonly number[];
  openTransport: OpenSerialTransport;
  /** Port paths for the operator's hint when opening fails. */
  listPortPaths: () => Promise<string[]>;
  /** Wall clock for stamps, in ms since the epoch. */
  nowMs: () => number;
}

export const DEFAULT_SERIAL_LINK_OPTIONS: Readonly<SerialLinkOptions> = Object.freeze({
  topicMap: DEFAULT_TOPIC_MAP,
  analogTopic: '/analog',
  hostName: 'reins',
  heartbeatPeriodMs: 100,
  helloRetryMs: 500,
  handshakeAlertAfterMs: 3000,
  commandAckTimeoutMs: 1000,
  reconnectDelaysMs: [100, 250, 500, 1000, 2000],
  openTransport: openSerialPort,
  listPortPaths: async () => (await listSerialPorts()).map((port) => port.path),
  // Looked up at each call, so tests that fake the clock are obeyed.
  nowMs: () => Date.now(),
});
