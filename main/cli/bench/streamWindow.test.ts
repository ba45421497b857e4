import { describe, expect, it } from 'vitest';
import { StreamWindow } from './streamWindow.ts';

describe('StreamWindow', () => {
  it('counts only messages decoded inside the window, and reports their latency and rate', () => {
    const window = new StreamWindow(1000, 2000);
    window.record(999, 990); // warm-up
    for (let i = 0; i < 60; i++) window.record(1000 + i * 33, 1000 + i * 33 - (i % 2 === 0 ? 2 : 4));
    window.record(3000, 2990); // after the window
    expect(window.count).toBe(60);
    const [latency, rate] = window.rows('scan-720@30-cbor');
    expect(latency).toEqual({ name: 'scan-720@30-cbor-latency', unit: 'ms', p50: 2, p95: 4, p99: 4, value: 3 });
    expect(rate).toEqual({ name: 'scan-720@30-cbor-hz', unit: 'Hz', p50: null, p95: null, p99: null, value: 30 });
  });

  it('refuses to report a stream from which nothing arrived', () => {
    expect(() => new StreamWindow(0, 1000).rows('image-640x480@30-json')).toThrow(/no message arrived/);
    expect(() => new StreamWindow(0, 0)).toThrow(RangeError);
  });
});
