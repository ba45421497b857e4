import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseStartArgs } from './args.ts';
import { parseTopicMapArg } from './topicMapArg.ts';
import { UsageError } from './usageError.ts';

const folder = mkdtempSync(join(tmpdir(), 'reins-topic-map-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('reins review --topic-map', () => {
  it('takes the roles’ topics as JSON inline or in a file', () => {
    expect(parseTopicMapArg('{"camera": "/front/image", "odom": "/wheel_odom"}')).toEqual({ camera: '/front/image', odom: '/wheel_odom' });
    const file = join(folder, 'topics.json');
    writeFileSync(file, '{"scan": "/base_scan"}\n');
    expect(parseStartArgs(['--review', '/tmp/x.mcap', '--topic-map', file]).reviewTopics).toEqual({ scan: '/base_scan' });
  });

  it.each([
    ['{"lidar": "/scan"}', '--topic-map: no role "lidar" (roles: camera, scan, joints, imu, odom)'],
    ['{"camera": "not a topic!"}', '--topic-map: camera: not a ROS topic name (letters, digits, _ and /, such as /camera/image_raw)'],
    ['{"command": "/cmd_vel"}', '--topic-map: review sends no commands, so it has no command topic (roles: camera, scan, joints, imu, odom)'],
    ['{"camera": ', /^--topic-map is not JSON: /],
    ['/no/such/topics.json', /^--topic-map takes a JSON object .* \/no\/such\/topics\.json cannot be read \(ENOENT\)$/],
  ])('refuses %s in words', (text, message) => {
    expect(() => parseTopicMapArg(text)).toThrow(UsageError);
    expect(() => parseTopicMapArg(text)).toThrow(message);
  });

  it('applies only in review mode', () => {
    expect(() => parseStartArgs(['--topic-map', '{"odom": "/odom"}'])).toThrow(/--topic-map chooses a log's topics in review mode/);
  });
});
