// The link for a robot given as a plain ws:// (or wss://) address: until the bridge there has been
// told apart (bridgeDetection.ts) it is connecting, retrying with jittered backoff and saying why in
// an alert; then it opens the rosbridge or foxglove link and is that link from then on. Subscriptions
// made meanwhile are made on it; a command issued before it exists is dropped, never kept for later.
import type { CoreAlert } from '../core/alert.ts';
import type { Link, LinkCapabilities, LinkEvents, LinkPresence, NodeParameterRead, RobotAssetFetch, TopicInfo, Unsubscribe } from '../core/link.ts';
import type { Received, RobotMessage, Twist } from '../core/messages.ts';
import { AlertBoard } from './alertBoard.ts';
import { untrustedCertificateHint } from './caFile.ts';
import type { BridgeDetection, BridgeProtocol } from './bridgeDetection.ts';
import { LinkEventHub } from './linkEventHub.ts';
import { JitteredBackoff, ROSBRIDGE_RECONNECT_BACKOFF, type BackoffPolicy } from './rosbridge/backoff.ts';
import type { ClockOffsetEstimate } from './rosbridge/clockOffset.ts';

export interface DetectingLinkOptions {
  url: string;
  /** Asks the server which bridge it is (detectBridge with the link's TLS settings). */
  detect(url: string): Promise<BridgeDetection>;
  /** Opens the link for the bridge found; called once. */
  open(protocol: BridgeProtocol): Link;
  /** Told once the bridge is known, e.g. to log it. */
  detected?(protocol: BridgeProtocol): void;
  backoff?: BackoffPolicy;
  random?: () => number;
}

interface PendingSubscription {
  topic: string;
  onMessage: (received: Received<RobotMessage>) => void;
  detach: Unsubscribe;
}

const CAPABILITIES: LinkCapabilities = Object.freeze({ sendsCommands: true, simulated: false });

export class DetectingLink implements Link {
  readonly robotName: string;
  private inner: Link | undefined;
  private protocolFound: BridgeProtocol | undefined;
  private readonly subscriptions = new Set<PendingSubscription>();
  private readonly events = new LinkEventHub('connecting');
  private readonly alertBoard = new AlertBoard((alerts) => this.events.emitAlerts(alerts));
  private readonly backoff: JitteredBackoff;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly options: DetectingLinkOptions) {
    this.robotName = URL.canParse(options.url) ? new URL(options.url).host : options.url;
    this.backoff = new JitteredBackoff(options.backoff ?? ROSBRIDGE_RECONNECT_BACKOFF, options.random);
    void this.attempt();
  }

  get capabilities(): LinkCapabilities {
    return this.inner?.capabilities ?? CAPABILITIES;
  }

  /** The bridge found at the address; undefined until it answered. */
  protocol(): BridgeProtocol | undefined {
    return this.protocolFound;
  }

  /** The link the address turned out to need, once known (its own methods, such as callService). */
  attached(): Link | undefined {
    return this.inner;
  }

  presence(): LinkPresence {
    return this.inner?.presence() ?? this.events.presence();
  }

  alerts(): readonly CoreAlert[] {
    return this.inner?.alerts() ?? this.alertBoard.list();
  }

  topics(): readonly TopicInfo[] {
    return this.inner?.topics() ?? [];
  }

  /** The robot's clock against the cockpit's, where the link found estimates it. */
  clockOffset(): ClockOffsetEstimate | undefined {
    const estimating = this.inner as (Link & { clockOffset?: () => ClockOffsetEstimate | undefined }) | undefined;
    return typeof estimating?.clockOffset === 'function' ? estimating.clockOffset() : undefined;
  }

  /** ROS 1 or ROS 2 where the link found knows it. */
  rosVersion(): 1 | 2 | undefined {
    const knowing = this.inner as (Link & { rosVersion?: () => 1 | 2 | undefined }) | undefined;
    return typeof knowing?.rosVersion === 'function' ? knowing.rosVersion() : undefined;
  }

  /** The node parameter, through the link found (rosapi or foxglove_bridge's parameters); none before the bridge answered. */
  readNodeParameter(node: string, name: string): Promise<NodeParameterRead> {
    const inner = this.inner;
    if (this.closed || inner === undefined) return Promise.resolve({ ok: false, problem: `the bridge at ${this.options.url} has not answered yet` });
    if (inner.readNodeParameter === undefined) return Promise.resolve({ ok: false, problem: `the bridge at ${this.options.url} cannot read node parameters` });
    return inner.readNodeParameter(node, name);
  }

  /** A file the robot serves, through the link found (foxglove_bridge's assets); none before the bridge answered. */
  fetchAsset(uri: string): Promise<RobotAssetFetch> {
    const inner = this.inner;
    if (this.closed || inner === undefined)
      return Promise.resolve({ ok: false, problem: `the bridge at ${this.options.url} has not answered yet`, failure: 'unsupported' });
    if (inner.fetchAsset === undefined)
      return Promise.resolve({
        ok: false,
        problem: `the robot's files cannot be fetched over this link (only foxglove_bridge serves them)`,
        failure: 'unsupported',
      });
    return inner.fetchAsset(uri);
  }

  subscribe<M extends RobotMessage>(topic: string, onMessage: (received: Received<M>) => void): Unsubscribe {
    if (this.closed) return () => undefined;
    if (this.inner !== undefined) return this.inner.subscribe(topic, onMessage);
    // The cast restates the subscriber's own promise: it asked for M on this topic.
    const pending: PendingSubscription = { topic, onMessage: onMessage as (received: Received<RobotMessage>) => void, detach: () => undefined };
    this.subscriptions.add(pending);
    return () => {
      pending.detach();
      this.subscriptions.delete(pending);
    };
  }

  publish(topic: string, twist: Twist): boolean {
    return this.inner?.publish(topic, twist) ?? false;
  }

  on<E extends keyof LinkEvents>(event: E, listener: LinkEvents[E]): Unsubscribe {
    return this.events.on(event, listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer !== undefined) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.subscriptions.clear();
    await this.inner?.close();
    this.events.setPresence('closed');
    this.events.clear();
  }

  private async attempt(): Promise<void> {
    this.retryTimer = undefined;
    const detection = await this.options.detect(this.options.url);
    if (this.closed) return;
    if (!detection.ok) {
      const delayMs = this.backoff.nextDelayMs();
      this.alertBoard.raise({
        key: 'connection',
        severity: 'warn',
        message: `Cannot reach the robot at ${this.options.url} (${detection.reason}); retrying (attempt ${this.backoff.attempts}).`,
        hint: connectionHint(detection.reason),
      });
      this.retryTimer = setTimeout(() => void this.attempt(), delayMs);
      return;
    }
    this.attach(detection.protocol);
  }

  private attach(protocol: BridgeProtocol): void {
    const inner = this.options.open(protocol);
    this.inner = inner;
    this.protocolFound = protocol;
    this.options.detected?.(protocol);
    // The inner link speaks for itself from now on: its presence and alerts are this link's.
    inner.on('presence', (presence) => this.events.setPresence(presence));
    inner.on('alerts', (alerts) => this.events.emitAlerts(alerts));
    for (const pending of this.subscriptions) pending.detach = inner.subscribe(pending.topic, pending.onMessage);
    this.subscriptions.clear();
    this.events.setPresence(inner.presence());
    this.events.emitAlerts(inner.alerts());
  }
}

function connectionHint(reason: string): string {
  return (
    untrustedCertificateHint(reason) ??
    'Check that rosbridge_server (port 9090) or foxglove_bridge (port 8765) is running on the robot and that the host and port are reachable.'
  );
}
