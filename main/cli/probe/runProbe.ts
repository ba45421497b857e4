// `reins probe ROBOT [--seconds 5] [--json]`: connects to a robot, listens to every topic it offers
// for a while, and reports each topic's type, rate, bytes per second and latency; the command topic
// and the type the robot takes there (or why no command can be sent); and the robot's clock offset.
import type { Logger } from 'pino';
import { DEFAULT_TOPIC_MAP, type Link } from '../../core/link.ts';
import type { RobotMessage } from '../../core/messages.ts';
import { clockOffsetOf, LinkUnreachable, waitUntilPresent, type ClockOffsetEstimate } from '../../session/linkParts.ts';
import { openRobot } from '../../session/openRobot.ts';
import { parseRobotSpec, type ProbeArgs } from '../args.ts';
import { TopicMeter, type TopicReport } from './topicMeter.ts';

export interface ProbeReport {
  robot: string;
  connected: boolean;
  topics: TopicReport[];
  /** The command topic and the type the robot takes on it; undefined where it offers none. */
  command?: { topic: string; type: string | undefined };
  /** Why no command could be sent (a missing topic, an unsupported type). */
  commandProblem?: string;
  /** The robot's clock minus the cockpit's, where the link estimates it. */
  clockOffset?: ClockOffsetEstimate;
}

const CONNECT_TIMEOUT_MS = 10_000;

export async function runProbe(args: ProbeArgs, log: Logger): Promise<number> {
  const spec = parseRobotSpec(args.robot);
  let report: ProbeReport;
  try {
    const opened = await openRobot(spec, log, [], undefined, undefined, args.ca?.pem);
    try {
      report = await probeLink(opened.link, args.robot, args.seconds);
    } finally {
      await opened.close();
    }
  } catch (error) {
    if (!(error instanceof LinkUnreachable) && !(error instanceof Error && /handshake|printed no address|exited/.test(error.message))) throw error;
    log.error({ err: error }, 'could not reach the robot');
    report = { robot: args.robot, connected: false, topics: [] };
  }
  process.stdout.write(args.json ? `${JSON.stringify(report)}\n` : `${formatProbe(report)}\n`);
  return report.connected ? 0 : 1;
}

export async function probeLink(link: Link, robot: string, seconds: number, commandTopic = DEFAULT_TOPIC_MAP.command): Promise<ProbeReport> {
  try {
    await waitUntilPresent(link, CONNECT_TIMEOUT_MS);
  } catch (error) {
    if (error instanceof LinkUnreachable) return { robot, connected: false, topics: [] };
    throw error;
  }
  const meters = link
    .topics()
    .filter((topic) => topic.kind !== 'Twist')
    .map((topic) => new TopicMeter(topic.topic, topic.type ?? topic.kind));
  const unsubscribes = meters.map((meter) => link.subscribe<RobotMessage>(meter.name, (received) => meter.record(received)));
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  for (const unsubscribe of unsubscribes) unsubscribe();
  const command = link.topics().find((topic) => topic.topic === commandTopic);
  const commandProblem = link.alerts().find((alert) => alert.key === `command-type:${commandTopic}`)?.message;
  const clockOffset = clockOffsetOf(link);
  const typeNow = new Map(link.topics().flatMap((topic) => (topic.type === undefined ? [] : [[topic.topic, topic.type] as const])));
  return {
    robot,
    connected: link.presence() === 'present',
    // A type learned while listening (rosapi answering late, or a robot without rosapi telling its ROS by its stamps) is shown; else "unknown", never a guess.
    topics: meters.map((meter) => ({ ...meter.report(seconds), type: typeNow.get(meter.name) ?? 'unknown' })),
    ...(command === undefined ? {} : { command: { topic: command.topic, type: command.type } }),
    ...(commandProblem === undefined ? {} : { commandProblem }),
    ...(clockOffset === undefined ? {} : { clockOffset }),
  };
}

export function formatProbe(report: ProbeReport): string {
  if (!report.connected) return `${report.robot}: not connected`;
  const header = ['topic', 'type', 'Hz', 'bytes/s', 'latency p50 ms'];
  const rows = report.topics.map((t) => [
    t.name,
    t.type,
    t.hz.toFixed(1),
    Math.round(t.bytesPerSec).toString(),
    t.latencyMsP50 === undefined ? '-' : t.latencyMsP50.toFixed(1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const command = report.command === undefined ? 'none' : `${report.command.topic} (${report.command.type ?? 'type unknown'})`;
  const offset = report.clockOffset;
  const clock =
    offset === undefined
      ? 'unknown'
      : `${(offset.offsetMs / 1000).toFixed(3)} s ${offset.uncertaintyMs === undefined ? '(from message stamps)' : `± ${offset.uncertaintyMs.toFixed(1)} ms`}`;
  return [
    `${report.robot}: connected`,
    `command topic: ${command}${report.commandProblem === undefined ? '' : ` — ${report.commandProblem}`}`,
    `robot clock − cockpit clock: ${clock}`,
    line(header),
    ...rows.map(line),
  ].join('\n');
}
