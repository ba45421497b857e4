// `reins review FILE --topic-map JSON|FILE`: which of the log's topics feeds which of the loop's
// roles, as a JSON object (`{"camera": "/front/image", "odom": "/wheel_odom"}`) given inline or in a
// file. Checked with the same schema as the Connect-robot dialog's topic map (`RobotTopicsInput`);
// review sends nothing, so it has no command topic. Whether the log has the topics is checked when
// it is opened (session/reviewTopics.ts).
import { readFileSync } from 'node:fs';
import { RobotTopicsInput } from '../core/contract.ts';
import type { StreamRole } from '../core/frame.ts';
import { UsageError } from './usageError.ts';

const ROLES = ['camera', 'scan', 'joints', 'imu', 'odom'] as const satisfies readonly StreamRole[];
const ReviewTopicsInput = RobotTopicsInput.omit({ command: true });

export function parseTopicMapArg(text: string): Partial<Record<StreamRole, string>> {
  const trimmed = text.trim();
  let json = trimmed;
  if (!trimmed.startsWith('{')) {
    try {
      json = readFileSync(trimmed, 'utf8');
    } catch (error) {
      throw new UsageError(
        `--topic-map takes a JSON object such as '{"camera": "/front/image"}' or a file holding one; ${trimmed} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`--topic-map ${json === trimmed ? '' : `(${trimmed}) `}is not JSON: ${(error as Error).message}`);
  }
  if (typeof value === 'object' && value !== null && 'command' in value)
    throw new UsageError('--topic-map: review sends no commands, so it has no command topic (roles: camera, scan, joints, imu, odom)');
  const parsed = ReviewTopicsInput.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `no role ${issue.keys.map((key) => `"${key}"`).join(', ')} (roles: ${ROLES.join(', ')})`
        : `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
    );
    throw new UsageError(`--topic-map: ${problems.join('; ')}`);
  }
  const choice: Partial<Record<StreamRole, string>> = {};
  for (const role of ROLES) if (parsed.data[role] !== undefined) choice[role] = parsed.data[role];
  return choice;
}
