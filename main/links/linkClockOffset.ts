// The robot's clock against the cockpit's, from a link that estimates it (rosbridge does, from
// `/rosapi/get_time` round trips); undefined for links that do not. For probe and the connection
// manager, which hold a plain `Link`.
import type { Link } from '../core/link.ts';
import type { ClockOffsetEstimate } from './rosbridge/clockOffset.ts';

export function clockOffsetOf(link: Link): ClockOffsetEstimate | undefined {
  const estimating = link as Link & { clockOffset?: () => ClockOffsetEstimate | undefined };
  return typeof estimating.clockOffset === 'function' ? estimating.clockOffset() : undefined;
}

/** The command topic as the robot offers it (its type), or why no command can be sent there (the link's alert). */
export function commandTopicOf(link: Link, topic: string): { topic: string; type?: string; problem?: string } | undefined {
  const offered = link.topics().find((each) => each.topic === topic);
  const problem = link.alerts().find((alert) => alert.key === `command-type:${topic}`)?.message;
  if (offered === undefined && problem === undefined) return undefined;
  return { topic, ...(offered?.type === undefined ? {} : { type: offered.type }), ...(problem === undefined ? {} : { problem }) };
}
