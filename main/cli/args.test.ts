import { describe, expect, it } from 'vitest';
import { parseBenchArgs, parseRobotSpec, parseStartArgs } from './args.ts';
import { UsageError } from './usageError.ts';

describe('parseRobotSpec', () => {
  it('defaults to the simulated robot', () => {
    expect(parseRobotSpec(undefined)).toEqual({ kind: 'sim' });
    expect(parseRobotSpec('sim')).toEqual({ kind: 'sim' });
  });

  it('reads rosbridge and serial robots', () => {
    expect(parseRobotSpec('ws://10.0.0.5:9090')).toEqual({ kind: 'websocket', url: 'ws://10.0.0.5:9090/' });
    expect(parseRobotSpec('serial:/dev/ttyACM0?baud=57600')).toEqual({ kind: 'serial', path: '/dev/ttyACM0', baud: 57600 });
    expect(parseRobotSpec('serial:/dev/ttyUSB1')).toEqual({ kind: 'serial', path: '/dev/ttyUSB1', baud: 115200 });
  });

  it.each(['tcp://robot', 'ws://', 'serial:ttyUSB0', 'serial:/dev/ttyUSB0?baud=fast', 'serial:/dev/ttyUSB0?parity=odd'])(
    'refuses %s with a usage error',
    (text) => {
      expect(() => parseRobotSpec(text)).toThrow(UsageError);
    },
  );
});

describe('the memory budget and the memory bench’s options (issue 31)', () => {
  it('takes --memory-budget-mib as a whole number of MiB, and leaves it to the default otherwise', () => {
    expect(parseStartArgs(['--memory-budget-mib', '2048']).memoryBudgetMib).toBe(2048);
    expect(parseStartArgs([]).memoryBudgetMib).toBeUndefined();
    for (const text of ['1.5', '100', 'lots', '0', '2000000'])
      expect(() => parseStartArgs(['--memory-budget-mib', text])).toThrow(/--memory-budget-mib must be a whole number of MiB from 256 to 1048576/);
  });

  it('takes --rows and --under-load for the memory suite only', () => {
    expect(parseBenchArgs(['memory', '--rows', '20000', '--under-load', 'only']).memory).toEqual({ rows: 20000, underLoad: 'only' });
    expect(parseBenchArgs(['memory']).memory).toEqual({ rows: undefined, underLoad: undefined });
    expect(() => parseBenchArgs(['memory', '--under-load', 'sometimes'])).toThrow(/--under-load must be one of also, only, off/);
    expect(() => parseBenchArgs(['memory', '--rows', 'many'])).toThrow(/--rows takes a whole number/);
    expect(() => parseBenchArgs(['tick', '--rows', '20000'])).toThrow(/apply only to reins bench memory/);
  });
});

describe('reins bench worldmodel --save / --from (issue 30)', () => {
  it('keeps the trained model, or evaluates a kept one, never both; the other suites refuse them', () => {
    expect(parseBenchArgs(['worldmodel', '--save', '/tmp/wm.ckpt']).worldModel).toEqual({ saveModelTo: '/tmp/wm.ckpt' });
    expect(parseBenchArgs(['worldmodel', '--from', '/tmp/wm.ckpt']).worldModel).toEqual({ modelFrom: '/tmp/wm.ckpt' });
    expect(parseBenchArgs(['worldmodel']).worldModel).toEqual({});
    expect(() => parseBenchArgs(['worldmodel', '--save', 'a', '--from', 'b'])).toThrow(/--save FILE .* or --from FILE .*, not both/);
    expect(() => parseBenchArgs(['tick', '--from', 'b'])).toThrow(/apply only to reins bench critic and worldmodel/);
  });
});
