import { describe, expect, it } from 'vitest';
import { formatAge, formatAngularSpeed, formatLatencyMs, formatLinearSpeed, formatMetres, formatRateHz } from './format.ts';

describe('format', () => {
  it('shows speeds with two decimals and their unit', () => {
    expect(formatLinearSpeed(0.4213)).toBe('0.42 m/s');
    expect(formatLinearSpeed(-0.5)).toBe('-0.50 m/s');
    expect(formatAngularSpeed(1)).toBe('1.00 rad/s');
  });

  it('never shows a negative zero', () => {
    expect(formatLinearSpeed(-0.001)).toBe('0.00 m/s');
    expect(formatAngularSpeed(-0)).toBe('0.00 rad/s');
  });

  it('shows a dash for missing values', () => {
    expect(formatLinearSpeed(undefined)).toBe('—');
    expect(formatAge(undefined)).toBe('—');
    expect(formatRateHz(Number.NaN)).toBe('—');
  });

  it('switches age units as messages get old', () => {
    expect(formatAge(42.4)).toBe('42 ms');
    expect(formatAge(1530)).toBe('1.5 s');
    expect(formatAge(125_000)).toBe('2 min');
  });

  it('formats rates, latencies and ring labels', () => {
    expect(formatRateHz(9.96)).toBe('10.0 Hz');
    expect(formatLatencyMs(3.14159)).toBe('3.1 ms');
    expect(formatLatencyMs(250.4)).toBe('250 ms');
    expect(formatMetres(2)).toBe('2 m');
    expect(formatMetres(0.5)).toBe('0.5 m');
  });
});
