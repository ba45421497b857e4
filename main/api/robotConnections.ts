// The connection manager: which robot the cockpit drives, switched at runtime. A connect runs in the
// background and reports through `state()`; the robot attached now stays attached until the new one
// answers, and is closed only after the swap. Never while anyone drives: the operator stops first.
import type { Driver } from '../core/tickReport.ts';
import type { Logger } from 'pino';
import { DEFAULT_TOPIC_MAP, type TopicMap } from '../core/link.ts';
import { parseRobotAddress, RobotAddressError, type OpenedRobot, type RobotSpec } from '../links/robotAddress.ts';
import type { SwitchableLink } from '../links/switchableLink.ts';
import { LinkUnreachable, waitUntilPresent } from '../links/waitUntilPresent.ts';
import { clockOffsetOf, commandTopicOf } from '../links/linkClockOffset.ts';
import type { RobotConnection, RobotTopicsInput } from '../core/contract.ts';

/** Opens a robot's link; the CLI provides it (the simulated robot is a process the CLI starts). */
export type OpenRobot = (spec: RobotSpec, topics: Readonly<TopicMap>) => Promise<OpenedRobot>;

export const CONNECT_TIMEOUT_MS = 10_000;

export interface RobotConnectionsOptions {
  openRobot: OpenRobot;
  /** How long a new robot has to answer before the connect fails. */
  connectTimeoutMs?: number;
  /** Who drives now: a switch is refused while the operator or the policy does. */
  driver: () => Driver;
  /** Where a robot that fails to close is reported (the switch itself has already happened). */
  log?: Pick<Logger, 'warn' | 'info'>;
}

export type ConnectOutcome = { ok: true } | { ok: false; code: 'bad-request' | 'refused'; message: string };

export class RobotConnections {
  private current: OpenedRobot;
  private currentTopics: Readonly<TopicMap>;
  private status: RobotConnection;
  private connecting = false;
  private closed = false;
  private readonly connectTimeoutMs: number;

  constructor(
    private readonly link: SwitchableLink,
    initial: { robot: string; opened: OpenedRobot; topics?: Readonly<TopicMap> },
    private readonly options: RobotConnectionsOptions,
  ) {
    this.current = initial.opened;
    this.currentTopics = initial.topics ?? DEFAULT_TOPIC_MAP;
    this.status = { robot: initial.robot, status: 'connected' };
    this.connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  }

  state(): RobotConnection {
    if (this.status.status !== 'connected') return { ...this.status };
    // What the Connect-robot dialog shows of the attached robot: its command topic's type, its clock.
    const command = commandTopicOf(this.current.link, this.currentTopics.command);
    const offsetMs = clockOffsetOf(this.current.link)?.offsetMs;
    return { ...this.status, ...(command === undefined ? {} : { command }), ...(offsetMs === undefined ? {} : { clockOffsetMs: offsetMs }) };
  }

  /** The attached robot's topic for each role. */
  topics(): Readonly<TopicMap> {
    return this.currentTopics;
  }

  /** Starts connecting, or says at once why not; `settled` resolves when the attempt is over. */
  connect(robot: string, topics: RobotTopicsInput | undefined): ConnectOutcome & { settled?: Promise<void> } {
    let spec: RobotSpec;
    try {
      spec = parseRobotAddress(robot);
    } catch (error) {
      if (error instanceof RobotAddressError) return { ok: false, code: 'bad-request', message: `cannot connect to ${error.message}` };
      throw error;
    }
    if (this.closed) return { ok: false, code: 'refused', message: 'the cockpit is shutting down' };
    if (this.connecting) return { ok: false, code: 'refused', message: `already connecting to ${this.status.robot}: wait for it to finish` };
    if (this.driving()) return { ok: false, code: 'refused', message: this.stopFirst(robot) };
    const robotTopics: TopicMap = { ...DEFAULT_TOPIC_MAP, ...withoutUndefined(topics) };
    this.connecting = true;
    this.status = { robot, status: 'connecting' };
    const settled = this.attach(robot, spec, robotTopics).finally(() => {
      this.connecting = false;
    });
    return { ok: true, settled };
  }

  /** Closes the attached robot (one last zero goes out if anyone was driving). */
  async close(): Promise<void> {
    this.closed = true;
    await this.current.close();
  }

  private async attach(robot: string, spec: RobotSpec, topics: TopicMap): Promise<void> {
    let opened: OpenedRobot | undefined;
    try {
      opened = await this.options.openRobot(spec, topics);
      await waitUntilPresent(opened.link, this.connectTimeoutMs);
    } catch (error) {
      const alerts = opened?.link.alerts() ?? [];
      if (opened) await this.closeQuietly(opened, robot);
      this.status = { robot, status: 'failed', error: this.explain(robot, error, alerts) };
      return;
    }
    if (this.closed || this.driving()) {
      await this.closeQuietly(opened, robot);
      const why = this.closed ? 'the cockpit is shutting down' : this.stopFirst(robot);
      this.status = { robot, status: 'failed', error: `${robot} answered, but ${why}` };
      return;
    }
    const previous = this.current;
    this.link.switchTo(opened.link, topics);
    this.current = opened;
    this.currentTopics = topics;
    this.status = { robot, status: 'connected' };
    this.options.log?.info({ robot }, 'switched robots');
    // After the swap: the loop already talks to the new robot, and nothing is sent twice.
    await this.closeQuietly(previous, 'the previous robot');
  }

  /** A robot that fails to close is logged: the outcome the operator sees does not depend on it. */
  private async closeQuietly(robot: OpenedRobot, name: string): Promise<void> {
    try {
      await robot.close();
    } catch (error) {
      this.options.log?.warn({ err: error, robot: name }, 'a robot link failed to close');
    }
  }

  private driving(): boolean {
    const driver = this.options.driver();
    return driver === 'operator' || driver === 'policy';
  }

  private stopFirst(robot: string): string {
    const who = this.options.driver() === 'policy' ? 'the policy is driving' : 'the operator is driving';
    return `${who}: stop first (let go of the drive keys and turn autonomy off, or press E-stop), then connect to ${robot}`;
  }

  private explain(robot: string, error: unknown, alerts: readonly { message: string; hint?: string }[]): string {
    const why = alerts.map((alert) => `${alert.message}${alert.hint ? ` ${alert.hint}` : ''}`).join(' ');
    if (error instanceof LinkUnreachable && !/closed before/.test(error.message)) {
      const seconds = Math.round(this.connectTimeoutMs / 100) / 10;
      return `nothing answered at ${robot} within ${seconds} s${why ? `. ${why}` : '.'}`;
    }
    const message = error instanceof Error ? error.message : String(error);
    return `could not connect to ${robot}: ${message}${why ? `. ${why}` : ''}`;
  }
}

function withoutUndefined(topics: RobotTopicsInput | undefined): Partial<TopicMap> {
  const out: Partial<TopicMap> = {};
  for (const [role, topic] of Object.entries(topics ?? {}) as [keyof TopicMap, string | undefined][]) if (topic !== undefined) out[role] = topic;
  return out;
}
