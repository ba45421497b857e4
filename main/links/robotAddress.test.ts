import { describe, expect, it } from 'vitest';
import { parseRobotAddress, RobotAddressError } from './robotAddress.ts';

describe('parseRobotAddress: foxglove servers', () => {
  it('reads foxglove://HOST:PORT as the ws:// address of a foxglove server, and foxglove+wss:// as wss://', () => {
    expect(parseRobotAddress('foxglove://192.168.1.20:8765')).toEqual({ kind: 'foxglove', url: 'ws://192.168.1.20:8765/' });
    expect(parseRobotAddress('foxglove+wss://robot.local:8765')).toEqual({ kind: 'foxglove', url: 'wss://robot.local:8765/' });
    expect(parseRobotAddress('ws://192.168.1.20:9090')).toEqual({ kind: 'websocket', url: 'ws://192.168.1.20:9090/' });
  });

  it('refuses a foxglove address without a host, saying which form it expects', () => {
    expect(() => parseRobotAddress('foxglove://')).toThrow(RobotAddressError);
    expect(() => parseRobotAddress('foxglove://')).toThrow(/foxglove:\/\/HOST:PORT/);
  });
});
