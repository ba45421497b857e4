import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseStartArgs } from './args.ts';
import { UsageError } from './usageError.ts';

describe('reins start, simulated robot options', () => {
  it('passes --sim-camera and --sim-prerendered-camera on to the simulated robot', () => {
    expect(parseStartArgs(['--sim-camera', '640x480@30', '--sim-prerendered-camera']).simArgs).toEqual(['--camera', '640x480@30', '--prerendered-camera']);
    expect(parseStartArgs([]).simArgs).toEqual([]);
  });

  it('refuses a malformed camera before any process starts', () => {
    expect(() => parseStartArgs(['--sim-camera', '640x480'])).toThrow(UsageError);
    expect(() => parseStartArgs(['--sim-camera', '4000x480@30'])).toThrow(/WIDTHxHEIGHT@HZ/);
  });

  it('refuses sim options for a robot that is not the simulated one', () => {
    expect(() => parseStartArgs(['--robot', 'ws://127.0.0.1:9090', '--sim-camera', '160x120@15'])).toThrow(/only to --robot sim/);
    expect(parseStartArgs(['--sim-points', '40x500@10']).simArgs).toEqual(['--points', '40x500@10']);
    expect(() => parseStartArgs(['--sim-points', '40x500'])).toThrow(/--points takes LAYERSxBEAMS@HZ/);
    expect(() => parseStartArgs(['--robot', 'ws://127.0.0.1:9090', '--sim-points', 'off'])).toThrow(/only to --robot sim/);
  });
});

describe('reins start, encoder options', () => {
  it('takes another encoder manifest, made absolute, and the encoder threads', () => {
    const args = parseStartArgs(['--encoders', 'my/manifest.json', '--encoder-threads', '2']);
    expect(args.encoders).toBe(resolve('my/manifest.json'));
    expect(args.encoderThreads).toBe(2);
    expect(parseStartArgs([])).toMatchObject({ encoders: undefined, encoderThreads: undefined });
  });

  it('refuses a thread count that is not a whole number from 1', () => {
    expect(() => parseStartArgs(['--encoder-threads', '0'])).toThrow(/--encoder-threads must be a whole number/);
    expect(() => parseStartArgs(['--encoder-threads', '1.5'])).toThrow(UsageError);
  });
});

describe('reins start, world-model options', () => {
  it('runs the default live preset unless told otherwise', () => {
    expect(parseStartArgs([]).worldModel).toEqual({ preset: 'wm-xs', replayRatio: 64 });
    expect(parseStartArgs(['--world-model', 'wm-xxs', '--replay-ratio', '16']).worldModel).toEqual({ preset: 'wm-xxs', replayRatio: 16 });
    expect(parseStartArgs(['--no-world-model']).worldModel.preset).toBeUndefined();
  });

  it('refuses an unknown preset, a bad replay ratio and contradicting flags', () => {
    expect(() => parseStartArgs(['--world-model', 'wm-huge'])).toThrow(/--world-model must be one of wm-s, wm-xs, wm-xxs/);
    expect(() => parseStartArgs(['--replay-ratio', '0'])).toThrow(/--replay-ratio must be a number above 0/);
    expect(() => parseStartArgs(['--world-model', 'wm-s', '--no-world-model'])).toThrow(UsageError);
  });
});

describe('reins review and the point-cloud topic', () => {
  it('takes the log to review, made absolute, and re-scoring only with it', () => {
    expect(parseStartArgs(['--review', 'logs/a.mcap', '--rescore'])).toMatchObject({ review: resolve('logs/a.mcap'), rescore: true });
    expect(parseStartArgs([])).toMatchObject({ review: undefined, rescore: false });
    expect(() => parseStartArgs(['--rescore'])).toThrow(/--rescore re-scores a log in review mode/);
    expect(() => parseStartArgs(['--review', 'a.mcap', '--robot', 'sim'])).toThrow(/--robot does not apply/);
    expect(() => parseStartArgs(['--review', 'a.mcap', '--rescore', '--no-memory'])).toThrow(/cannot go with --no-memory/);
    expect(() => parseStartArgs(['--review', ''])).toThrow(UsageError);
  });

  it('takes a point-cloud topic that is a ROS topic name', () => {
    expect(parseStartArgs(['--points-topic', '/velodyne_points']).pointsTopic).toBe('/velodyne_points');
    expect(parseStartArgs([]).pointsTopic).toBeUndefined();
    expect(() => parseStartArgs(['--points-topic', 'no spaces'])).toThrow(/--points-topic must be a ROS topic name/);
  });

  it('takes a robot model file, made absolute', () => {
    expect(parseStartArgs(['--urdf', '/robots/rover.urdf']).urdf).toBe('/robots/rover.urdf');
    expect(parseStartArgs(['--urdf', 'rover.urdf']).urdf).toBe(resolve('rover.urdf'));
    expect(parseStartArgs([]).urdf).toBeUndefined();
    expect(() => parseStartArgs(['--urdf', ''])).toThrow(/--urdf needs the path of a URDF file/);
  });

  it('takes a xacro model’s arguments and package folders (absolute), and refuses them malformed', () => {
    const args = parseStartArgs([
      '--urdf',
      'rover.urdf.xacro',
      '--xacro-arg',
      'prefix:=left_',
      '--xacro-arg',
      'lidar:=true',
      '--ros-package',
      'rover_description=src/rover',
    ]);
    expect(args.xacro).toEqual({ args: { prefix: 'left_', lidar: 'true' }, packages: { rover_description: resolve('src/rover') } });
    expect(parseStartArgs([]).xacro).toEqual({ args: {}, packages: {} });
    expect(() => parseStartArgs(['--xacro-arg', 'prefix=left_'])).toThrow(/--xacro-arg takes NAME:=VALUE, got "prefix=left_"/);
    expect(() => parseStartArgs(['--ros-package', 'rover_description'])).toThrow(/--ros-package takes NAME=DIR/);
  });
});

describe('reins start, the heartbeat watchdog', () => {
  it('stops the robot after 300 ms without a heartbeat unless told otherwise, never after more than 3 s', () => {
    expect(parseStartArgs([]).watchdogMs).toBe(300);
    expect(parseStartArgs(['--watchdog-ms', '1000']).watchdogMs).toBe(1000);
    expect(() => parseStartArgs(['--watchdog-ms', '5000'])).toThrow(/--watchdog-ms must be a whole number from 100 to 3000/);
    expect(() => parseStartArgs(['--watchdog-ms', '50'])).toThrow(UsageError);
    expect(() => parseStartArgs(['--watchdog-ms', 'soon'])).toThrow(UsageError);
  });
});

describe('reins start, a TwistStamped command topic', () => {
  it("stamps zero in base_link unless told to stamp the robot's clock; never the cockpit's", () => {
    expect(parseStartArgs([]).command).toEqual({ stamp: 'zero', frameId: 'base_link' });
    expect(parseStartArgs(['--command-stamp', 'robot', '--command-frame-id', 'base_footprint']).command).toEqual({ stamp: 'robot', frameId: 'base_footprint' });
    expect(() => parseStartArgs(['--command-stamp', 'cockpit'])).toThrow(/--command-stamp must be one of zero, robot/);
    expect(() => parseStartArgs(['--command-frame-id', 'base link'])).toThrow(UsageError);
  });
});
