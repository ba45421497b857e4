import { describe, expect, it } from 'vitest';
import { parseRobotSpec } from './args.ts';
import { UsageError } from './usageError.ts';

describe('parseRobotSpec', () => {
  it('defaults to the simulated robot', () => {
    expect(parseRobotSpec(undefined)).toEqual({ kind: 'sim' });
    expect(parseRobotSpec('sim')).toEqual({ kind: 'sim' });
  });

  it('reads rosbridge and serial robots', () => {
    expect(parseRobotSpec('ws://10.0.0.5:9090')).toEqual({ kind: 'rosbridge', url: 'ws://10.0.0.5:9090/' });
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
