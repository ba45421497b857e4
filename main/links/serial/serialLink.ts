// The serial transport of DESIGN §5: a microcontroller speaking PROTOCOL.md on a serial port.
// SerialLink holds the connection state machine (open → HELLO → present, reconnect when the port
// vanishes or the device goes silent), maps SENSOR samples onto the topic map, and sends drive
// commands only while the device is present: a command that cannot go out now is dropped.
import type { CoreAlert } from '../../core/alert.ts';
import { AlertBoard } from '../alertBoard.ts';
import type { Link, LinkCapabilities, LinkEvents, LinkPresence, TopicInfo, Unsubscribe } from '../../core/link.ts';
import { LinkEventHub } from '../linkEventHub.ts';
import type { Received, RobotMessage, Twist } from '../../core/messages.ts';
import { TopicFanout } from '../topicFanout.ts';
import { CommandRoundTrip, type RoundTripStats } from './commandRoundTrip.ts';
import { DeviceClock } from './deviceClock.ts';
import type { Frame } from './frames.ts';
import { hasCapability, PROTOCOL_VERSION, STATUS_FLAG, type Ack, type DeviceInfo } from './protocolMessages.ts';
import * as alerts from './serialAlerts.ts';
import { SerialConnection } from './serialConnection.ts';
import { routeSample, sampleTopics, SensorMapper, type MappedSample } from './sensorMapping.ts';
import { DEFAULT_SERIAL_LINK_OPTIONS, type SerialLinkOptions } from './serialLinkOptions.ts';
import { classifyOpenError } from './serialTransport.ts';
import { parseSerialUrl, type SerialAddress } from './serialUrl.ts';

export type { SerialLinkOptions } from './serialLinkOptions.ts';

export interface CommandAck extends Ack {
  roundTripMs: number | undefined;
}

type Phase = 'opening' | 'handshake' | 'present' | 'incompatible' | 'closed';

export function createSerialLink(url: string, options: Partial<SerialLinkOptions> = {}): SerialLink {
  return new SerialLink(parseSerialUrl(url), options);
}

export class SerialLink implements Link {
  readonly capabilities: LinkCapabilities = Object.freeze({ sendsCommands: true, simulated: false });
  private readonly options: SerialLinkOptions;
  private readonly board: AlertBoard;
  private readonly clock = new DeviceClock();
  private readonly roundTrip = new CommandRoundTrip();
  private readonly fanout = new TopicFanout({ subscriberFailed: (topic, error) => this.board.count(alerts.subscriberFailedAlert(topic, error)) });
  private readonly events = new LinkEventHub('connecting');
  private readonly ackListeners = new Set<(ack: CommandAck) => void>();
  private phase: Phase = 'opening';
  private everPresent = false;
  private connection: SerialConnection | undefined;
  /** Bumped per open attempt, so callbacks from a connection already given up are ignored. */
  private generation = 0;
  private device: DeviceInfo | undefined;
  private mapper: SensorMapper | undefined;
  private handshakeStartMs = 0;
  private lastHelloMs = 0;
  private lastHeardMs = 0;
  private reconnectAttempt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly maintenanceTimer: NodeJS.Timeout;

  constructor(
    readonly address: SerialAddress,
    options: Partial<SerialLinkOptions> = {},
  ) {
    this.options = { ...DEFAULT_SERIAL_LINK_OPTIONS, ...options };
    this.board = new AlertBoard((list) => this.events.emitAlerts(list), { nowMs: this.options.nowMs });
    this.maintenanceTimer = setInterval(() => this.maintain(), this.options.heartbeatPeriodMs);
    void this.connect();
  }

  get robotName(): string {
    return this.device?.name ?? `serial:${this.address.path}`;
  }

  presence(): LinkPresence {
    return this.events.presence();
  }

  alerts(): readonly CoreAlert[] {
    return this.board.list();
  }

  /** What the device said about itself in its last HELLO_REPLY. */
  deviceInfo(): DeviceInfo | undefined {
    return this.device;
  }

  /** Command → ACK round trips measured so far. */
  roundTripStats(): RoundTripStats | undefined {
    return this.roundTrip.stats();
  }

  /** Cockpit clock minus device clock, in ms, as estimated from the device's stamps. */
  clockOffsetMs(): number | undefined {
    return this.clock.offsetMs();
  }

  topics(): readonly TopicInfo[] {
    return this.device ? sampleTopics(this.device, this.options.topicMap, this.options.analogTopic) : [];
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    if (this.phase === 'closed') return () => undefined;
    return this.fanout.subscribe(topic, onMessage);
  }

  publish(topic: string, twist: Twist): boolean {
    const { connection, device } = this;
    if (topic !== this.options.topicMap.command || this.phase !== 'present' || !connection || !device) return false;
    if (!hasCapability(device, 'velocityCommand')) return false;
    const linearMps = twist.linearMps.x;
    const angularRadps = twist.angularRadps.z;
    if (!Number.isFinite(linearMps) || !Number.isFinite(angularRadps)) return false;
    const seq = connection.send({ type: 'velocity', linearMps, angularRadps });
    if (seq === undefined) return false;
    this.roundTrip.sent(seq, performance.now());
    return true;
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  /** Each ACK from the device: the command it actually applied, and the round trip. */
  onAck(listener: (ack: CommandAck) => void): Unsubscribe {
    this.ackListeners.add(listener);
    return () => {
      this.ackListeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    // A last zero, so the robot stops now rather than when its watchdog notices the silence.
    if (this.phase === 'present') this.connection?.send({ type: 'velocity', linearMps: 0, angularRadps: 0 });
    this.phase = 'closed';
    this.generation++;
    clearInterval(this.maintenanceTimer);
    clearTimeout(this.reconnectTimer);
    const connection = this.connection;
    this.connection = undefined;
    await connection?.close();
    this.events.setPresence('closed');
    this.fanout.clear();
    this.events.clear();
    this.ackListeners.clear();
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = undefined;
    const generation = ++this.generation;
    const current = (): boolean => generation === this.generation && this.phase !== 'closed';
    const { path, baud } = this.address;
    try {
      const connection = await SerialConnection.open(
        this.options.openTransport,
        path,
        baud,
        {
          onFrame: (frame, receiveTimeMs) => current() && this.onFrame(frame, receiveTimeMs),
          onFault: (fault) => current() && this.board.count(alerts.faultAlert(fault, baud)),
          onFramesLost: (count) => current() && this.board.count(alerts.framesLostAlert(), count),
          onLost: () => current() && this.onPortLost(),
        },
        this.options.nowMs,
      );
      if (!current()) {
        await connection.close();
        return;
      }
      this.connection = connection;
      this.reconnectAttempt = 0;
      this.board.clear(alerts.SERIAL_ALERT_KEYS.port);
      this.beginHandshake();
    } catch (error) {
      if (!current()) return;
      const detail = error instanceof Error ? error.message : String(error);
      const paths = await this.options.listPortPaths().catch(() => []);
      if (!current()) return;
      this.board.raise(alerts.openFailedAlert(path, classifyOpenError(error), detail, paths));
      this.events.setPresence(this.everPresent ? 'reconnecting' : 'connecting');
      this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    const delays = this.options.reconnectDelaysMs;
    const delayMs = delays[Math.min(this.reconnectAttempt, delays.length - 1)] ?? 1000;
    this.reconnectAttempt++;
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
  }

  private onPortLost(): void {
    this.connection = undefined;
    this.phase = 'opening';
    this.roundTrip.forgetPending();
    this.board.raise(alerts.portLostAlert(this.address.path));
    this.events.setPresence(this.everPresent ? 'reconnecting' : 'connecting');
    this.scheduleReconnect();
  }

  private beginHandshake(): void {
    this.phase = 'handshake';
    this.handshakeStartMs = this.options.nowMs();
    this.roundTrip.forgetPending();
    this.events.setPresence(this.everPresent ? 'reconnecting' : 'connecting');
    this.connection?.sendDelimiter();
    this.sendHello();
  }

  private sendHello(): void {
    this.lastHelloMs = this.options.nowMs();
    this.connection?.send({
      type: 'hello',
      protocolVersion: PROTOCOL_VERSION,
      heartbeatPeriodMs: this.options.heartbeatPeriodMs,
      hostName: this.options.hostName,
    });
  }

  /** Runs every heartbeat period: heartbeats, HELLO retries, silence and ACK timeouts, alert upkeep. */
  private maintain(): void {
    const nowMs = this.options.nowMs();
    if (this.phase === 'handshake') {
      if (nowMs - this.lastHelloMs >= this.options.helloRetryMs) this.sendHello();
      const waitedMs = nowMs - this.handshakeStartMs;
      if (waitedMs >= this.options.handshakeAlertAfterMs) this.board.raise(alerts.handshakeAlert(this.address.path, this.address.baud, waitedMs));
    } else if (this.phase === 'present') {
      this.connection?.send({ type: 'heartbeat', senderTimeUs: Math.round(performance.now() * 1000) >>> 0, status: 0 });
      const silentMs = nowMs - this.lastHeardMs;
      if (silentMs > this.silenceLimitMs()) {
        this.board.raise(alerts.silentAlert(this.address.path, silentMs));
        this.beginHandshake();
      }
    }
    const unanswered = this.roundTrip.expire(performance.now(), this.options.commandAckTimeoutMs);
    if (unanswered > 0) this.board.count(alerts.commandUnansweredAlert(), unanswered);
    this.board.sweep();
  }

  private silenceLimitMs(): number {
    return Math.max(1000, 3 * (this.device?.heartbeatPeriodMs ?? 0));
  }

  private onFrame({ message }: Frame, receiveTimeMs: number): void {
    this.lastHeardMs = receiveTimeMs;
    switch (message.type) {
      case 'helloReply':
        return this.onHelloReply(message);
      case 'sensor': {
        if (!this.mapper || this.phase !== 'present') return; // a stream from before our HELLO
        const sourceTimeMs = this.clock.observe(message.deviceTimeUs, receiveTimeMs);
        this.deliver(this.mapper.map(message), receiveTimeMs, sourceTimeMs);
        if (message.status !== undefined) this.onDeviceStatus(message.status);
        return;
      }
      case 'heartbeat':
        if (this.phase !== 'present') return;
        this.clock.observe(message.senderTimeUs, receiveTimeMs);
        return this.onDeviceStatus(message.status);
      case 'ack':
        return this.onAckFrame(message);
      case 'error':
        return this.board.count(alerts.deviceErrorAlert(message));
      default:
        this.board.count(alerts.faultAlert({ kind: 'unknown-type', detail: `the device sent ${message.type}, which only a host sends` }, this.address.baud));
    }
  }

  private onHelloReply(info: DeviceInfo & { type: 'helloReply' }): void {
    if (info.protocolVersion !== PROTOCOL_VERSION) {
      this.phase = 'incompatible';
      this.board.raise(alerts.versionAlert(info.protocolVersion, PROTOCOL_VERSION));
      this.events.setPresence('error');
      return;
    }
    if (this.phase === 'present') return; // the answer to a repeated HELLO: nothing new
    const { type: _type, ...device } = info;
    // The same device back after a blip keeps its odometry; its encoder counts may have restarted.
    if (this.mapper && this.device && sameDevice(this.device, device)) this.mapper.restartCounts();
    else this.mapper = new SensorMapper(device);
    this.device = device;
    this.clock.reset();
    this.connection?.resetDeviceSequence();
    this.phase = 'present';
    this.everPresent = true;
    for (const key of [alerts.SERIAL_ALERT_KEYS.handshake, alerts.SERIAL_ALERT_KEYS.silent, alerts.SERIAL_ALERT_KEYS.version]) this.board.clear(key);
    this.events.setPresence('present');
  }

  private onDeviceStatus(status: number): void {
    if (status & STATUS_FLAG.watchdogStopped) this.board.raise(alerts.deviceWatchdogAlert(this.device?.heartbeatTimeoutMs ?? 0));
    else this.board.clear(alerts.SERIAL_ALERT_KEYS.deviceWatchdog);
  }

  private onAckFrame(ack: Ack): void {
    const roundTripMs = this.roundTrip.acknowledged(ack.ackedSeq, performance.now());
    if (ack.result === 'not-armed' || ack.result === 'invalid') this.board.raise(alerts.commandRefusedAlert(ack.result));
    else this.board.clear(alerts.SERIAL_ALERT_KEYS.commandRefused);
    for (const listener of [...this.ackListeners]) listener({ ...ack, roundTripMs });
  }

  private deliver(sample: MappedSample, receiveTimeMs: number, sourceTimeMs: number): void {
    for (const [topic, msg] of routeSample(sample, this.options.topicMap, this.options.analogTopic)) {
      if (this.fanout.wants(topic)) this.fanout.deliver({ topic, receiveTimeMs, sourceTimeMs, msg });
    }
  }
}

function sameDevice(a: DeviceInfo, b: DeviceInfo): boolean {
  return (
    a.name === b.name &&
    a.wheelCount === b.wheelCount &&
    a.encoderCountsPerRev === b.encoderCountsPerRev &&
    a.wheelRadiusM === b.wheelRadiusM &&
    a.trackM === b.trackM
  );
}
