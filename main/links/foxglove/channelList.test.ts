import { describe, expect, it } from 'vitest';
import { ChannelList } from './channelList.ts';

const entry = (id: number, topic: string) => ({ id, topic, encoding: 'cdr', schemaName: 'sensor_msgs/msg/Imu', schema: 'x', schemaEncoding: 'ros2msg' });

describe('ChannelList', () => {
  it('keeps well-formed channels, one per topic, and says why each malformed entry was refused', () => {
    const list = new ChannelList(10, () => false);
    const changes = list.advertise([entry(1, '/imu'), entry(2, '/imu'), { id: -1, topic: '/bad' }, 'nonsense', entry(3, '/odom')]);
    expect(changes.added.map((channel) => channel.id)).toEqual([1, 3]);
    expect(changes.malformed).toHaveLength(2);
    expect(changes.malformed[0]).toMatch(/^channel \/bad: /);
    expect(list.forTopic('/imu')?.id).toBe(1);
    expect(list.advertise({ not: 'a list' }).malformed).toEqual(['"channels" is not a list']);
  });

  it('past its bound keeps only the wanted topics and counts the rest', () => {
    const list = new ChannelList(2, (topic) => topic === '/odom');
    const changes = list.advertise([entry(1, '/a'), entry(2, '/b'), entry(3, '/c'), entry(4, '/odom'), entry(5, '/d')]);
    expect(changes.added.map((channel) => channel.topic)).toEqual(['/a', '/b', '/odom']);
    expect(changes.overflow).toBe(2);
    expect(list.size).toBe(3);
  });

  it('forgets withdrawn channels, so the topic can come back on a new id', () => {
    const list = new ChannelList(10, () => false);
    list.advertise([entry(1, '/imu')]);
    expect(list.unadvertise([1, 99, 'x']).map((channel) => channel.topic)).toEqual(['/imu']);
    expect(list.forTopic('/imu')).toBeUndefined();
    expect(list.advertise([entry(7, '/imu')]).added).toHaveLength(1);
    expect(list.get(7)?.topic).toBe('/imu');
  });
});
