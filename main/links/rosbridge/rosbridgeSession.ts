// One connection to a rosbridge server, through roslib. Each connection gets a fresh roslib `Ros`
// that is never connected twice. That is half of the no-replay guarantee: roslib queues whatever
// is sent while its Ros is disconnected (`callOnConnection` waits for the next 'connection' event,
// and topics with `reconnect_on_close` re-send their ops), and a Ros that never reconnects can never
// flush such a queue into a later connection. The other half: nothing is handed to roslib unless
// the socket is open at that moment (`isOpen()`), so nothing is queued in the first place.
import type { WireCompression } from './topicRoutes.ts';
import type { LinkClock, TimerHandle } from './linkClock.ts';
import { ROSLIB, type Ros, type RosbridgeCallServiceMessage, type RosbridgeMessage, type Topic } from './roslib.ts';
import { RosbridgeTransport, type HeartbeatTimings } from './rosbridgeTransport.ts';
import { ServiceCallError } from './serviceCallError.ts';
import { describeWireValue } from './decode/wireFields.ts';
import type { SocketPort } from './socketPort.ts';

export interface SessionHandlers {
  open(): void;
  /** The connection is gone (or never opened); called once, and not after `close()`. */
  closed(reason: string): void;
  message(topic: string, wire: unknown): void;
  /** A frame the server sent could not be understood; the connection carries on. */
  frameProblem(problem: string): void;
  /** A `status` op from the server (only sent where the client raised its status level). */
  serverStatus(level: string, text: string): void;
}

export interface WireSubscription {
  topic: string;
  rosType: string;
  compression: WireCompression;
  throttleMs?: number;
  queueLength?: number;
}

interface ActiveSubscription {
  topic: Topic<unknown>;
  rosType: string;
  compression: WireCompression;
}

interface PendingCall {
  service: string;
  fail(error: ServiceCallError): void;
}

export class RosbridgeSession {
  private readonly ros: Ros;
  private readonly transport: RosbridgeTransport;
  private readonly subscriptions = new Map<string, ActiveSubscription>();
  private readonly publishers = new Map<string, Topic<unknown>>();
  private readonly calls = new Map<string, PendingCall>();
  private nextCallNumber = 1;
  private ended = false;

  constructor(
    url: string,
    socket: SocketPort,
    private readonly clock: LinkClock,
    heartbeat: Readonly<HeartbeatTimings>,
    private readonly handlers: SessionHandlers,
  ) {
    const transport = new RosbridgeTransport(socket, clock, heartbeat);
    this.transport = transport;
    this.ros = new ROSLIB.Ros({ transportFactory: () => Promise.resolve(transport) });
    this.ros.on('connection', () => {
      if (!this.ended) handlers.open();
    });
    this.ros.on('close', () => this.end(transport.closeReason(), true));
    this.ros.on('error', (error) => {
      if (!this.ended) handlers.frameProblem(error instanceof Error ? error.message : String(error));
    });
    this.ros.on('status', (message) => {
      if (!this.ended && message.op === 'status') handlers.serverStatus(message.level, message.msg);
    });
    this.ros.connect(url).then(
      () => transport.deliverMissedEvent(),
      (error: unknown) => this.end(`could not connect: ${String(error)}`, true),
    );
  }

  /** True only while the socket is open right now: the one moment anything may be sent. */
  isOpen(): boolean {
    return !this.ended && this.ros.isConnected && this.transport.isOpen();
  }

  /** Subscribes, or re-subscribes when the type or compression changed. Does nothing unless open. */
  subscribe(wanted: WireSubscription): void {
    if (!this.isOpen()) return;
    const existing = this.subscriptions.get(wanted.topic);
    if (existing?.compression === wanted.compression && existing.rosType === wanted.rosType) return;
    this.unsubscribe(wanted.topic);
    const topic = new ROSLIB.Topic<unknown>({
      ros: this.ros,
      name: wanted.topic,
      messageType: wanted.rosType,
      compression: wanted.compression,
      throttle_rate: wanted.throttleMs ?? 0,
      queue_length: wanted.queueLength ?? 0,
      reconnect_on_close: false,
    });
    topic.subscribe((wire) => {
      if (!this.ended) this.handlers.message(wanted.topic, wire);
    });
    this.subscriptions.set(wanted.topic, { topic, rosType: wanted.rosType, compression: wanted.compression });
  }

  unsubscribe(topicName: string): void {
    const active = this.subscriptions.get(topicName);
    if (active === undefined) return;
    this.subscriptions.delete(topicName);
    // On a dead connection there is nothing to tell the server, and roslib would only queue it.
    if (this.isOpen()) active.topic.unsubscribe();
  }

  /** Advertises now, on an open socket; a later publish re-advertises if the type changed. */
  advertise(topicName: string, rosType: string): void {
    if (!this.isOpen()) return;
    const existing = this.publishers.get(topicName);
    if (existing?.messageType === rosType) return;
    if (existing !== undefined) existing.unadvertise();
    const topic = new ROSLIB.Topic<unknown>({ ros: this.ros, name: topicName, messageType: rosType, reconnect_on_close: false });
    topic.advertise();
    this.publishers.set(topicName, topic);
  }

  /** Sends now or not at all: returns false, having handed roslib nothing, unless the socket is open. */
  publish(topicName: string, rosType: string, message: unknown): boolean {
    if (!this.isOpen()) return false;
    this.advertise(topicName, rosType);
    this.publishers.get(topicName)?.publish(message);
    return true;
  }

  /** Calls a service with a deadline; rejects with a ServiceCallError saying why no answer came. */
  callService(service: string, type: string, args: Readonly<Record<string, unknown>>, timeoutMs: number): Promise<unknown> {
    if (!this.isOpen()) return Promise.reject(new ServiceCallError('not-connected', service, `${service} was not called: not connected`));
    const id = `call:${service}:${this.nextCallNumber++}`;
    return new Promise((resolve, reject) => {
      let timer: TimerHandle | undefined;
      const finish = (): void => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        this.ros.off(id, onResponse);
        this.calls.delete(id);
      };
      const onResponse = (message: RosbridgeMessage): void => {
        if (message.op !== 'service_response') return;
        finish();
        if (message.result) resolve(message.values);
        else reject(new ServiceCallError('failed', service, `${service} failed: ${failureReason(message.values)}`));
      };
      timer = this.clock.setTimeout(() => {
        finish();
        reject(new ServiceCallError('timeout', service, `${service} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      this.calls.set(id, { service, fail: (error) => (finish(), reject(error)) });
      this.ros.on(id, onResponse);
      // `type` lets ROS 2 servers call services they cannot introspect; ROS 1 servers ignore it.
      const request: RosbridgeCallServiceMessage & { type: string } = { op: 'call_service', id, service, type, args, timeout: timeoutMs / 1000 };
      this.ros.callOnConnection(request);
    });
  }

  /** Ends this connection for good; `closed` is not called for a close the cockpit asked for. */
  close(): void {
    if (this.ended) return;
    this.end('closed by the cockpit', false);
    this.transport.close();
  }

  private end(reason: string, notify: boolean): void {
    if (this.ended) return;
    this.ended = true;
    for (const call of [...this.calls.values()]) {
      call.fail(new ServiceCallError('disconnected', call.service, `${call.service} got no answer: the connection closed (${reason})`));
    }
    this.subscriptions.clear();
    this.publishers.clear();
    if (notify) this.handlers.closed(reason);
  }
}

/** Why a service call failed, as the server put it; String() is not used, as it throws on some values. */
function failureReason(values: unknown): string {
  if (values === undefined || values === null) return 'no reason given';
  return typeof values === 'string' ? values : describeWireValue(values);
}
