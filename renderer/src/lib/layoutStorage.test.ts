import { describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT, SPLIT_LIMITS, movePanel, setSplit } from './layout.ts';
import { LAYOUT_STORAGE_KEY, LAYOUT_VERSION, clearLayout, loadLayout, parseLayout, saveLayout, serializeLayout, type LayoutStore } from './layoutStorage.ts';

class MemoryStore implements LayoutStore {
  readonly items = new Map<string, string>();
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value);
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
}

function collectWarnings(): { warnings: string[]; warn: (message: string) => void } {
  const warnings: string[] = [];
  return { warnings, warn: (message) => warnings.push(message) };
}

/** The default layout as version 1 saved it, before the point cloud. */
const V1_DEFAULT = {
  version: 1,
  slots: { topLeft: 'camera', topRight: 'lidar', bottom: 'drive', right: 'status' },
  splits: { columns: 0.57, rows: 0.78, rail: 0.75 },
};

describe('the saved layout', () => {
  it('reads back exactly what was saved', () => {
    const store = new MemoryStore();
    const layout = setSplit(movePanel(DEFAULT_LAYOUT, 'drive', 'right'), 'columns', 0.4);
    const { warnings, warn } = collectWarnings();
    saveLayout(store, layout, warn);
    expect(loadLayout(store, warn)).toEqual(layout);
    expect(warnings).toEqual([]);
  });

  it('uses the default, silently, when nothing was saved', () => {
    const { warnings, warn } = collectWarnings();
    expect(loadLayout(new MemoryStore(), warn)).toBe(DEFAULT_LAYOUT);
    expect(warnings).toEqual([]);
  });

  it('forgets the saved layout on clear', () => {
    const store = new MemoryStore();
    const { warn } = collectWarnings();
    saveLayout(store, movePanel(DEFAULT_LAYOUT, 'camera', 'bottom'), warn);
    clearLayout(store, warn);
    expect(store.items.has(LAYOUT_STORAGE_KEY)).toBe(false);
  });

  const unusable: [string, string][] = [
    ['text that is not JSON', '{"version":1,'],
    ['a layout from another version', JSON.stringify({ ...JSON.parse(serializeLayout(DEFAULT_LAYOUT)), version: 0 })],
    ['an unknown panel', JSON.stringify({ version: LAYOUT_VERSION, slots: { ...DEFAULT_LAYOUT.slots, right: 'plots' }, splits: DEFAULT_LAYOUT.splits })],
    ['a panel in two slots', JSON.stringify({ version: LAYOUT_VERSION, slots: { ...DEFAULT_LAYOUT.slots, right: 'camera' }, splits: DEFAULT_LAYOUT.splits })],
    [
      'a split that is not a fraction',
      JSON.stringify({ version: LAYOUT_VERSION, slots: DEFAULT_LAYOUT.slots, splits: { ...DEFAULT_LAYOUT.splits, rows: 'tall' } }),
    ],
    [
      'a version 2 layout saved as the current version (no bottom right slot)',
      JSON.stringify({ version: LAYOUT_VERSION, slots: { ...DEFAULT_LAYOUT.slots, bottomRight: undefined }, splits: DEFAULT_LAYOUT.splits }),
    ],
    [
      'a layout without the point cloud saved as the current version',
      JSON.stringify({ version: LAYOUT_VERSION, slots: V1_DEFAULT.slots, splits: V1_DEFAULT.splits }),
    ],
    ['a version 1 layout with a panel in two slots', JSON.stringify({ ...V1_DEFAULT, slots: { ...V1_DEFAULT.slots, right: 'camera' } })],
    ['null', 'null'],
  ];
  it.each(unusable)('falls back to the default with a warning for %s', (_what, text) => {
    const { warnings, warn } = collectWarnings();
    expect(parseLayout(text, warn)).toBe(DEFAULT_LAYOUT);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/default layout/);
  });

  it('keeps a layout saved before the point cloud existed, and adds the point cloud top right', () => {
    const { warnings, warn } = collectWarnings();
    const saved = {
      version: 1,
      slots: { topLeft: 'status', topRight: 'camera', bottom: 'lidar', right: 'drive' },
      splits: { columns: 0.6, rows: 0.7, rail: 0.8 },
    };
    expect(parseLayout(JSON.stringify(saved), warn)).toEqual({
      slots: { topLeft: 'status', topCentre: 'camera', topRight: 'pointcloud', bottom: 'lidar', bottomRight: 'plot', right: 'drive' },
      splits: { columns: 0.6, middle: DEFAULT_LAYOUT.splits.middle, rows: 0.7, rail: 0.8 },
    });
    expect(parseLayout(JSON.stringify(V1_DEFAULT), warn).slots).toEqual({
      topLeft: 'camera',
      topCentre: 'lidar',
      topRight: 'pointcloud',
      bottom: 'drive',
      bottomRight: 'plot',
      right: 'status',
    });
    expect(warnings).toEqual([]);
  });

  it('keeps a layout saved before the plot panel existed, and adds the plot bottom right', () => {
    const { warnings, warn } = collectWarnings();
    const saved = {
      version: 2,
      slots: { topLeft: 'drive', topCentre: 'camera', topRight: 'lidar', bottom: 'pointcloud', right: 'status' },
      splits: { columns: 0.3, middle: 0.6, rows: 0.7, rail: 0.8 },
    };
    expect(parseLayout(JSON.stringify(saved), warn)).toEqual({ slots: { ...saved.slots, bottomRight: 'plot' }, splits: saved.splits });
    expect(warnings).toEqual([]);
    const withPlotAlready = { ...saved, slots: { ...saved.slots, right: 'plot' } };
    expect(parseLayout(JSON.stringify(withPlotAlready), warn)).toBe(DEFAULT_LAYOUT);
    expect(warnings).toHaveLength(1);
  });

  it('pulls a saved split back within its limits', () => {
    const text = JSON.stringify({ version: LAYOUT_VERSION, slots: DEFAULT_LAYOUT.slots, splits: { ...DEFAULT_LAYOUT.splits, rail: 0.99 } });
    expect(parseLayout(text, () => undefined).splits.rail).toBe(SPLIT_LIMITS.rail.max);
  });

  it('keeps working when storage refuses to read or write', () => {
    const broken: LayoutStore = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      removeItem: () => undefined,
    };
    const { warnings, warn } = collectWarnings();
    expect(loadLayout(broken, warn)).toBe(DEFAULT_LAYOUT);
    saveLayout(broken, DEFAULT_LAYOUT, warn);
    expect(warnings).toHaveLength(2);
  });
});
