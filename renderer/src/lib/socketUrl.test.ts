import { describe, expect, it } from 'vitest';
import { coreSocketUrl, hashWithoutToken, tokenFromHash } from './socketUrl.ts';

describe('socket url', () => {
  it('reads the token from the hash', () => {
    expect(tokenFromHash('#token=abc123')).toBe('abc123');
    expect(tokenFromHash('#panel=camera&token=a%2Bb')).toBe('a+b');
    expect(tokenFromHash('')).toBeUndefined();
    expect(tokenFromHash('#token=')).toBeUndefined();
  });

  it('takes the token out of the hash and keeps the rest', () => {
    expect(hashWithoutToken('#token=abc')).toBe('');
    expect(hashWithoutToken('#panel=camera&token=abc')).toBe('#panel=camera');
  });

  it('opens the socket on the page host, secure when the page is', () => {
    expect(coreSocketUrl({ protocol: 'http:', host: '127.0.0.1:8123' }, 'a+b')).toBe('ws://127.0.0.1:8123/api/socket?token=a%2Bb');
    expect(coreSocketUrl({ protocol: 'https:', host: 'robot.lan:443' }, 't')).toBe('wss://robot.lan:443/api/socket?token=t');
  });
});
