// Which of a log's topics feeds each of the loop's roles in review: the operator's choice where they
// made one (`reins review FILE --topic-map`, or the form in the Review panel), checked against the
// log; else the default name where the log has it; else the first topic of the role's kind, whatever
// it is named (ROS 1, ROS 2 and Foxglove type names alike); the camera falls back to a
// CompressedImage topic when the log has no raw images.
import { STREAM_ROLES, type StreamRole } from '../core/frame.ts';
import { DEFAULT_TOPIC_MAP, ROLE_KINDS, type TopicMap } from '../core/link.ts';
import type { MessageKind } from '../core/messages.ts';
import { replayTopics, type ReplaySource } from '../links/replay/replayLink.ts';

/** The operator's choice of topic for some of the roles a replay feeds. */
export type ReviewTopicChoice = Partial<Record<StreamRole, string>>;

/** At most this many topics are offered for one role. */
const MAX_CHOICES_PER_ROLE = 64;

/** The kinds a topic may be of to feed a role: a camera takes compressed images too (decoded to pixels). */
function kindsFor(role: StreamRole): readonly MessageKind[] {
  return role === 'camera' ? ['Image', 'CompressedImage'] : [ROLE_KINDS[role]];
}

const ROLE_WORDS: Readonly<Record<StreamRole, string>> = {
  camera: 'the camera (an Image or CompressedImage topic)',
  scan: 'the LiDAR (a LaserScan topic)',
  joints: 'the joints (a JointState topic)',
  imu: 'the IMU (an Imu topic)',
  odom: 'the odometry (an Odometry topic)',
};

/** The topics of the log that could feed each role, in the log's order. */
export function roleChoices(log: Pick<ReplaySource, 'channels'>): Record<StreamRole, string[]> {
  const offered = replayTopics(log.channels);
  const choices = {} as Record<StreamRole, string[]>;
  for (const role of STREAM_ROLES)
    choices[role] = offered
      .filter((topic) => kindsFor(role).includes(topic.kind))
      .map((topic) => topic.topic)
      .slice(0, MAX_CHOICES_PER_ROLE);
  return choices;
}

/** The topic map a replay of this log runs on, or why the operator's choice does not fit the log (every misfit said). */
export function reviewTopicMap(
  log: Pick<ReplaySource, 'channels'>,
  chosen: ReviewTopicChoice = {},
): { ok: true; topics: TopicMap } | { ok: false; message: string } {
  const offered = replayTopics(log.channels);
  const problems: string[] = [];
  for (const role of STREAM_ROLES) {
    const topic = chosen[role];
    if (topic === undefined) continue;
    const found = offered.find((candidate) => candidate.topic === topic);
    if (found === undefined) {
      const listed = log.channels.some((channel) => channel.topic === topic);
      problems.push(`${topic} ${listed ? 'is in the log but cannot be read back' : 'is not a topic of the log'}, so it cannot feed ${ROLE_WORDS[role]}`);
    } else if (!kindsFor(role).includes(found.kind)) problems.push(`${topic} is ${found.type || 'of no type'}, so it cannot feed ${ROLE_WORDS[role]}`);
  }
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };
  return { ok: true, topics: topicMapOf(log, chosen) };
}

/** The topic map for a log: the choice where given (unchecked: see reviewTopicMap), else found by name, then by type. */
export function topicMapOf(log: Pick<ReplaySource, 'channels'>, chosen: ReviewTopicChoice = {}): TopicMap {
  const offered = replayTopics(log.channels);
  const map = { ...DEFAULT_TOPIC_MAP };
  for (const role of STREAM_ROLES) {
    const choice = chosen[role];
    if (choice !== undefined) {
      map[role] = choice;
      continue;
    }
    if (offered.some((topic) => topic.topic === DEFAULT_TOPIC_MAP[role] && topic.kind === ROLE_KINDS[role])) continue;
    const other =
      offered.find((topic) => topic.kind === ROLE_KINDS[role]) ?? (role === 'camera' ? offered.find((topic) => topic.kind === 'CompressedImage') : undefined);
    if (other) map[role] = other.topic;
  }
  return map;
}
