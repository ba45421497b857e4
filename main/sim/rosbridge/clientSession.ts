// One rosbridge client: every frame it sends is checked and either served or answered with a
// `status` error naming what was wrong (rosbridge_server only logs these; see RESEARCH.md). Nothing
// a client sends can stop the server or touch another client's subscriptions.
import type { RawData, WebSocket } from 'ws';
import type { CommandInput } from './commandInput.ts';
import type { OutgoingMessage } from './outgoingMessage.ts';
import { ClientOutbox, type OutboxOptions } from './clientOutbox.ts';
import { FragmentAssembler } from './fragments.ts';
import {
  isCompression,
  parseClientOp,
  type AdvertiseOp,
  type CallServiceOp,
  type ClientOp,
  type OpIdValue,
  type PublishOp,
  type StatusLevel,
  type SubscribeOp,
  type UnadvertiseOp,
  type UnsubscribeOp,
} from './protocol.ts';
import { hasCdrDefinition } from './cdrEncoding.ts';
import type { RosPersona } from './rosPersona.ts';
import type { RosMessage } from './rosMessages.ts';
import type { RosService, ServiceResult } from './services.ts';
import { CMD_VEL_TOPIC, describeTopics, resolveRosName, sameRosType, topicNamed, type KnownTopic } from './topicCatalog.ts';

/** The part of pino a session needs; pino's Logger fits it. */
export interface BridgeLog {
  debug(details: object, message: string): void;
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/** What a session reaches on the server: the robot's input, the services, other clients. */
export interface SessionHub {
  readonly services: ReadonlyMap<string, RosService>;
  /** /cmd_vel in the type the robot takes (Twist or TwistStamped), checking each command and handing it to the robot. */
  readonly command: CommandInput;
  /** Passes a command on to the clients that subscribed to /cmd_vel. */
  relayCommand(msg: RosMessage): void;
  /** A latched topic's last message, which each new subscription is sent first; undefined for other topics. */
  latched(topic: string): OutgoingMessage | undefined;
  /** ROS 1 or ROS 2: which compressions a subscription may ask for. */
  readonly persona: RosPersona;
  readonly log: BridgeLog;
}

export interface SessionOptions {
  /** Largest message accepted, whole or reassembled from fragments (rosbridge's default is 10 MB). */
  maxMessageBytes: number;
  /** Fragments of a message that has not completed in this time are dropped, with a status error. */
  fragmentTimeoutMs: number;
  /** Most subscriptions one client may hold. */
  maxSubscriptions: number;
  outbox: OutboxOptions;
}

/** Levels in rosbridge's order: `set_level X` sends statuses of level X and above. */
const LEVEL_RANK: Readonly<Record<StatusLevel, number>> = { info: 0, warning: 1, error: 2, none: 3 };
/** Refused requests are logged up to this many per client, so one broken client cannot flood the log. */
const MAX_LOGGED_REFUSALS = 10;

export class RosbridgeSession {
  readonly outbox: ClientOutbox;
  private readonly advertised = new Set<string>();
  private readonly fragments: FragmentAssembler;
  private statusLevel: StatusLevel = 'error';
  private refusals = 0;

  constructor(
    readonly clientId: number,
    socket: WebSocket,
    private readonly hub: SessionHub,
    private readonly options: SessionOptions,
  ) {
    this.outbox = new ClientOutbox(
      socket,
      (topic, error) => hub.log.error({ clientId, topic, err: error }, 'could not encode a message; skipped it'),
      options.outbox,
    );
    this.fragments = new FragmentAssembler({
      maxPendingChars: options.maxMessageBytes,
      timeoutMs: options.fragmentTimeoutMs,
      onExpired: (id, message) => this.refuse(message, id),
    });
    socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    socket.on('close', () => this.dispose());
    socket.on('error', (error) => hub.log.warn({ clientId, err: error }, 'rosbridge client socket error'));
  }

  subscribes(topic: string): boolean {
    return this.outbox.subscribes(topic);
  }

  dispose(): void {
    this.fragments.dispose();
    this.outbox.dispose();
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.refuse('binary frames are not accepted: send rosbridge ops as JSON text', undefined);
      return;
    }
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    if (bytes.byteLength > this.options.maxMessageBytes) {
      this.refuse(`message of ${bytes.byteLength} bytes exceeds the ${this.options.maxMessageBytes}-byte limit`, peekId(bytes));
      return;
    }
    this.handleText(bytes.toString('utf8'), false);
  }

  private handleText(text: string, reassembled: boolean): void {
    const parsed = parseClientOp(text);
    if (!parsed.ok) {
      this.refuse(parsed.message, parsed.id);
      return;
    }
    try {
      this.dispatch(parsed.op, reassembled);
    } catch (error) {
      // A bug of ours, not the client's: say so, log it, and keep serving.
      this.hub.log.error({ clientId: this.clientId, err: error, op: parsed.op.op }, 'rosbridge op failed');
      this.sendStatus('error', `internal error while handling "${parsed.op.op}": ${(error as Error).message}`, parsed.op.id);
    }
  }

  private dispatch(op: ClientOp, reassembled: boolean): void {
    switch (op.op) {
      case 'advertise':
        return this.advertise(op);
      case 'unadvertise':
        return this.unadvertise(op);
      case 'publish':
        return this.publish(op);
      case 'subscribe':
        return this.subscribe(op);
      case 'unsubscribe':
        return this.unsubscribe(op);
      case 'call_service':
        return this.callService(op);
      case 'set_level':
        this.statusLevel = op.level;
        return;
      case 'fragment': {
        if (reassembled) return this.refuse('a fragmented message may not itself be a fragment', op.id);
        const outcome = this.fragments.add(op);
        if (outcome.kind === 'refused') return this.refuse(outcome.message, op.id);
        if (outcome.kind === 'complete') this.handleText(outcome.text, true);
        return;
      }
    }
  }

  private advertise(op: AdvertiseOp): void {
    const topic = resolveRosName(op.topic);
    if (!this.checkCommandTopic(topic, 'advertise', op.id)) return;
    const commandType = this.hub.command.topic.type;
    if (!sameRosType(op.type, commandType)) {
      return this.refuse(`${topic} takes ${commandType}, not ${op.type}`, op.id);
    }
    this.advertised.add(topic);
  }

  private unadvertise(op: UnadvertiseOp): void {
    const topic = resolveRosName(op.topic);
    if (!this.advertised.delete(topic)) this.sendStatus('warning', `${topic} was not advertised by this client`, op.id);
  }

  private publish(op: PublishOp): void {
    const topic = resolveRosName(op.topic);
    if (!this.checkCommandTopic(topic, 'publish to', op.id)) return;
    if (!this.advertised.has(topic)) {
      return this.refuse(
        `publish to ${topic} before advertising it: send {"op":"advertise","topic":"${topic}","type":"${this.hub.command.topic.type}"} first`,
        op.id,
      );
    }
    const taken = this.hub.command.take(op.msg);
    if (!taken.ok) return this.refuse(`${topic}: ${taken.message}`, op.id);
    // A stale stamp is dropped as the controller drops it: a log line on the robot, nothing to the client.
    if (!taken.obeyed) this.hub.log.debug({ clientId: this.clientId, topic }, 'dropped a command stamped older than the command timeout');
    this.hub.relayCommand(taken.msg);
  }

  private subscribe(op: SubscribeOp): void {
    const topic = resolveRosName(op.topic);
    const known = this.known(topic);
    if (known === undefined) return this.refuse(`unknown topic ${topic}; topics: ${describeTopics()}`, op.id);
    if (op.type !== undefined && op.type !== '' && !sameRosType(op.type, known.type)) {
      return this.refuse(`${topic} has type ${known.type}, not ${op.type}`, op.id);
    }
    const compression = op.compression ?? 'none';
    const served = this.hub.persona.compressions;
    if (!isCompression(compression) || !served.includes(compression)) {
      return this.refuse(`compression "${compression}" is not served; use ${served.join(', ')}`, op.id);
    }
    if (compression === 'cbor-raw' && !hasCdrDefinition(known.type)) {
      return this.refuse(`${topic} has no fixed definition, so it cannot be sent as cbor-raw; use cbor`, op.id);
    }
    const binary = compression === 'cbor' || compression === 'cbor-raw';
    const id = op.id === undefined ? undefined : String(op.id);
    if (this.outbox.subscriptionCount() >= this.options.maxSubscriptions && !this.outbox.hasSubscription(topic, id)) {
      return this.refuse(`a client may hold at most ${this.options.maxSubscriptions} subscriptions`, op.id);
    }
    const throttleMs = op.throttle_rate ?? 0;
    const queueLength = op.queue_length ?? 0;
    if (binary && op.fragment_size !== undefined) {
      this.sendStatus('warning', `fragment_size is ignored with compression ${compression}: binary frames are not fragmented`, op.id);
    }
    this.outbox.subscribe(
      {
        id,
        topic,
        form: { compression, fragmentSize: binary ? undefined : op.fragment_size },
        throttleMs,
        // rosbridge with queue_length 0 keeps nothing back: a throttled topic sends its newest message.
        capacity: queueLength > 0 ? queueLength : throttleMs > 0 ? 1 : known.defaultQueueLength,
      },
      this.hub.latched(topic),
    );
    this.hub.log.debug({ clientId: this.clientId, topic, id, compression, throttleMs, queueLength }, 'subscribed');
  }

  private unsubscribe(op: UnsubscribeOp): void {
    const topic = resolveRosName(op.topic);
    if (topicNamed(topic) === undefined) return this.refuse(`unknown topic ${topic}; topics: ${describeTopics()}`, op.id);
    const id = op.id === undefined ? undefined : String(op.id);
    if (this.outbox.unsubscribe(topic, id) === 0) {
      this.sendStatus('warning', `no subscription to ${topic}${id === undefined ? '' : ` with id ${id}`}`, op.id);
    }
  }

  private callService(op: CallServiceOp): void {
    const name = resolveRosName(op.service);
    const service = this.hub.services.get(name);
    let result: ServiceResult;
    if (service === undefined) {
      result = { ok: false, error: `Service ${name} does not exist` };
    } else {
      try {
        result = service.call(op.args);
      } catch (error) {
        result = { ok: false, error: `${name} failed: ${(error as Error).message}` };
      }
    }
    if (!result.ok) this.logRefusal(result.error, op.id);
    // Field order as rosbridge_server writes it (see fixtures service-missing, rosapi-topics).
    const response = { op: 'service_response', service: op.service, values: result.ok ? result.values : result.error, result: result.ok, id: op.id };
    this.outbox.sendReply(JSON.stringify(response));
  }

  /** A topic by name, /cmd_vel in the type this robot takes. */
  private known(topic: string): KnownTopic | undefined {
    return topic === this.hub.command.topic.name ? this.hub.command.topic : topicNamed(topic);
  }

  /** /cmd_vel is the one topic a client may advertise or publish; says why not for any other. */
  private checkCommandTopic(topic: string, action: string, id: OpIdValue): boolean {
    if (topic === CMD_VEL_TOPIC.name) return true;
    if (topicNamed(topic) === undefined) this.refuse(`unknown topic ${topic}: the simulated robot takes commands on ${CMD_VEL_TOPIC.name} only`, id);
    else this.refuse(`cannot ${action} ${topic}: the robot publishes it; it takes commands on ${CMD_VEL_TOPIC.name}`, id);
    return false;
  }

  private refuse(message: string, id: OpIdValue): void {
    this.logRefusal(message, id);
    this.sendStatus('error', message, id);
  }

  private logRefusal(message: string, id: OpIdValue): void {
    this.refusals++;
    if (this.refusals <= MAX_LOGGED_REFUSALS) {
      this.hub.log.warn({ clientId: this.clientId, id, reason: message }, 'refused a rosbridge request');
    } else if (this.refusals === MAX_LOGGED_REFUSALS + 1) {
      this.hub.log.warn({ clientId: this.clientId }, 'further refused requests from this client are not logged');
    }
  }

  private sendStatus(level: Exclude<StatusLevel, 'none'>, msg: string, id: OpIdValue): void {
    if (LEVEL_RANK[level] < LEVEL_RANK[this.statusLevel]) return;
    this.outbox.sendReply(JSON.stringify({ op: 'status', level, msg, id }));
  }
}

/** The id of a message too large to parse, when it is written near the start (as clients do). */
function peekId(bytes: Buffer): OpIdValue {
  const match = /"id"\s*:\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,15})/.exec(bytes.subarray(0, 1024).toString('utf8'));
  if (match === null) return undefined;
  try {
    return JSON.parse(match[1]!) as string | number;
  } catch {
    return undefined;
  }
}
