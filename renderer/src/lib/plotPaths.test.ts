import { describe, expect, it } from 'vitest';
import { MAX_PLOT_SERIES } from './contract.ts';
import { PLOT_PATHS_STORAGE_KEY, loadPlotPaths, savePlotPaths } from './plotPaths.ts';

function store(text: string | null) {
  const items = new Map<string, string>(text === null ? [] : [[PLOT_PATHS_STORAGE_KEY, text]]);
  return { items, getItem: (key: string) => items.get(key) ?? null, setItem: (key: string, value: string) => void items.set(key, value) };
}

describe('the saved plot paths', () => {
  it('come back as saved', () => {
    const saved = store(null);
    savePlotPaths(saved, ['/odom.twist.twist.linear.x', '/joint_states.velocity[1]']);
    expect(loadPlotPaths(saved)).toEqual(['/odom.twist.twist.linear.x', '/joint_states.velocity[1]']);
  });

  it('keep only paths that parse, once each, at most the series limit', () => {
    const paths = [
      '/odom.twist.twist.linear.x',
      'not a path',
      7,
      '/odom.twist.twist.linear.x',
      ...Array.from({ length: 20 }, (_, i) => `/odom.pose.covariance[${i}]`),
    ];
    const loaded = loadPlotPaths(store(JSON.stringify(paths)), () => undefined);
    expect(loaded[0]).toBe('/odom.twist.twist.linear.x');
    expect(loaded).toHaveLength(MAX_PLOT_SERIES);
    expect(new Set(loaded).size).toBe(loaded.length);
  });

  it('start empty, with a warning, from text that is not a list', () => {
    const warnings: string[] = [];
    expect(loadPlotPaths(store('{"a":1}'), (message) => warnings.push(message))).toEqual([]);
    expect(loadPlotPaths(store('{'), (message) => warnings.push(message))).toEqual([]);
    expect(warnings).toHaveLength(2);
  });
});
