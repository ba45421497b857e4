import { describe, expect, it } from 'vitest';
import { MAX_PLOT_SERIES, MAX_REQUEST_BYTES } from '../core/contract.ts';
import { parseRequest } from './requestParsing.ts';

describe('parseRequest', () => {
  it('accepts every well-formed request', () => {
    expect(parseRequest('{"type":"drive","linearMps":0.2,"angularRadps":-0.5}')).toEqual({
      ok: true,
      request: { type: 'drive', linearMps: 0.2, angularRadps: -0.5 },
    });
    expect(parseRequest('{"type":"estop","id":"a1"}')).toMatchObject({ ok: true });
  });

  it.each([
    ['not json', 'bad-json'],
    ['[1,2]', 'bad-request'],
    ['{"linearMps":1}', 'bad-request'],
    ['{"type":"fly"}', 'unknown-request'],
    ['{"type":"drive","linearMps":"fast","angularRadps":0}', 'bad-request'],
    ['{"type":"drive","linearMps":1e400,"angularRadps":0}', 'bad-request'],
    ['{"type":"drive","linearMps":0.1,"angularRadps":0,"extra":1}', 'bad-request'],
    ['{"type":"set-autonomy","enabled":"yes"}', 'bad-request'],
  ])('refuses %s with %s', (text, code) => {
    const parsed = parseRequest(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe(code);
      expect(parsed.error.message.length).toBeGreaterThan(10);
    }
  });

  it('names the field that is wrong and echoes a readable id', () => {
    const parsed = parseRequest('{"type":"drive","id":"r7","linearMps":"fast","angularRadps":0}');
    expect(parsed).toMatchObject({ ok: false, error: { id: 'r7' } });
    if (!parsed.ok) expect(parsed.error.message).toContain('linearMps');
  });

  it('reads the field paths to plot, and names the one that does not parse', () => {
    expect(parseRequest('{"type":"set-plots","paths":["/odom.twist.twist.linear.x","/joint_states.velocity[1]"]}')).toEqual({
      ok: true,
      request: { type: 'set-plots', paths: ['/odom.twist.twist.linear.x', '/joint_states.velocity[1]'] },
    });
    const parsed = parseRequest('{"type":"set-plots","paths":["/odom.twist.twist.linear.x","/odom.twist["]}');
    expect(parsed).toMatchObject({ ok: false, error: { code: 'bad-request' } });
    if (!parsed.ok)
      expect(parsed.error.message).toBe(
        'invalid "set-plots" request: paths.1: an array index is a whole number in brackets, such as [1], at character 12 of /odom.twist[',
      );
    const tooMany = JSON.stringify({ type: 'set-plots', paths: Array.from({ length: MAX_PLOT_SERIES + 1 }, (_, i) => `/odom.pose.covariance[${i}]`) });
    expect(parseRequest(tooMany)).toMatchObject({ ok: false, error: { code: 'bad-request' } });
  });

  it('refuses an oversized request before parsing it', () => {
    const text = JSON.stringify({ type: 'estop', id: 'x', pad: 'y'.repeat(MAX_REQUEST_BYTES) });
    expect(parseRequest(text)).toMatchObject({ ok: false, error: { code: 'too-large' } });
  });
});
