import { describe, expect, it } from 'vitest';
import { CommandRoundTrip } from './commandRoundTrip.ts';
import { DeviceClock } from './deviceClock.ts';
import { parseSerialUrl, SerialUrlError } from './serialUrl.ts';
import { classifyOpenError } from './serialTransport.ts';

describe('DeviceClock', () => {
  it('puts device stamps on the cockpit clock using the fastest sample', () => {
    const clock = new DeviceClock();
    expect(clock.observe(1_000_000, 5_000 + 1000 + 7)).toBe(6_007); // 7 ms in transit, first guess
    expect(clock.observe(1_020_000, 5_000 + 1020 + 2)).toBe(6_022); // a faster sample lowers the offset
    expect(clock.observe(1_040_000, 5_000 + 1040 + 9)).toBe(6_042);
    expect(clock.offsetMs()).toBe(5_002);
  });

  it('unwraps the 32-bit microsecond counter', () => {
    const clock = new DeviceClock();
    clock.observe(2 ** 32 - 1000, 10_000);
    expect(clock.observe(1000, 10_002)).toBeCloseTo(10_002, 6);
  });

  it('forgets old samples, so a drifting crystal is followed', () => {
    const clock = new DeviceClock({ windowMs: 1000 });
    clock.observe(0, 100); // offset 100
    clock.observe(2_000_000, 2_150); // 2 s later: offset 150, the old sample has left the window
    expect(clock.offsetMs()).toBe(150);
  });
});

describe('CommandRoundTrip', () => {
  it('matches acknowledgements to commands and expires the unanswered', () => {
    const roundTrip = new CommandRoundTrip();
    roundTrip.sent(1, 0);
    roundTrip.sent(2, 10);
    expect(roundTrip.acknowledged(1, 6)).toBe(6);
    expect(roundTrip.acknowledged(1, 7)).toBeUndefined();
    expect(roundTrip.expire(2000, 1000)).toBe(1);
    expect(roundTrip.stats()).toEqual({ count: 1, p50Ms: 6, p95Ms: 6, maxMs: 6 });
  });
});

describe('serial URLs and open errors', () => {
  it('parses serial:/dev/PATH?baud=N with 115200 by default', () => {
    expect(parseSerialUrl('serial:/dev/ttyACM0')).toEqual({ path: '/dev/ttyACM0', baud: 115200 });
    expect(parseSerialUrl('serial:/dev/ttyUSB1?baud=57600')).toEqual({ path: '/dev/ttyUSB1', baud: 57600 });
    expect(() => parseSerialUrl('serial:/dev/ttyUSB1?baud=fast')).toThrow(SerialUrlError);
    expect(() => parseSerialUrl('serial:ttyUSB1')).toThrow(/serial:\/dev\/PATH/);
  });

  it('sorts open errors into what the operator can do', () => {
    expect(classifyOpenError(new Error('Error: No such file or directory, cannot open /dev/x'))).toBe('missing');
    expect(classifyOpenError(new Error('Error: Permission denied, cannot open /dev/x'))).toBe('permission');
    expect(classifyOpenError(new Error('Error Resource temporarily unavailable Cannot lock port'))).toBe('busy');
  });
});
