import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LAYOUT,
  PANEL_IDS,
  SLOT_IDS,
  SPLIT_LIMITS,
  gridTemplate,
  separatorAria,
  movePanel,
  sameLayout,
  setSplit,
  slotOf,
  splitAfterKey,
  splitAtPointer,
} from './layout.ts';

describe('panel slots', () => {
  it('puts every panel in exactly one slot by default', () => {
    expect(new Set(SLOT_IDS.map((slot) => DEFAULT_LAYOUT.slots[slot]))).toEqual(new Set(PANEL_IDS));
  });

  it('swaps the moved panel with the one in its new slot', () => {
    const moved = movePanel(DEFAULT_LAYOUT, 'camera', 'right');
    expect(slotOf(moved, 'camera')).toBe('right');
    expect(slotOf(moved, 'status')).toBe('topLeft');
    expect(slotOf(moved, 'lidar')).toBe('topCentre');
    expect(slotOf(moved, 'pointcloud')).toBe('topRight');
    expect(slotOf(moved, 'drive')).toBe('bottom');
    expect(slotOf(DEFAULT_LAYOUT, 'camera')).toBe('topLeft');
  });

  it('leaves the layout as it is when a panel moves to its own slot', () => {
    expect(movePanel(DEFAULT_LAYOUT, 'lidar', 'topCentre')).toBe(DEFAULT_LAYOUT);
  });
});

describe('splits', () => {
  it('keeps a split within its limits', () => {
    expect(setSplit(DEFAULT_LAYOUT, 'columns', 0.95).splits.columns).toBe(SPLIT_LIMITS.columns.max);
    expect(setSplit(DEFAULT_LAYOUT, 'rows', -1).splits.rows).toBe(SPLIT_LIMITS.rows.min);
    expect(setSplit(DEFAULT_LAYOUT, 'rail', 0.6).splits.rail).toBe(0.6);
  });

  it('ignores a position that is not a number', () => {
    expect(setSplit(DEFAULT_LAYOUT, 'rail', Number.NaN)).toBe(DEFAULT_LAYOUT);
  });

  it('reads a pointer position as a fraction of the span', () => {
    expect(splitAtPointer(150, 100, 300)).toBe(0.25);
    expect(splitAtPointer(150, 100, 100)).toBeNaN();
  });

  it('moves vertical separators with left and right, horizontal ones with up and down', () => {
    expect(splitAfterKey('columns', 0.5, 'ArrowRight', false)).toBeCloseTo(0.52);
    expect(splitAfterKey('columns', 0.5, 'ArrowLeft', true)).toBeCloseTo(0.4);
    expect(splitAfterKey('columns', 0.5, 'ArrowUp', false)).toBeUndefined();
    expect(splitAfterKey('rows', 0.7, 'ArrowDown', false)).toBeCloseTo(0.72);
    expect(splitAfterKey('rows', 0.7, 'ArrowRight', false)).toBeUndefined();
    expect(splitAfterKey('rail', 0.7, 'Home', false)).toBe(SPLIT_LIMITS.rail.min);
    expect(splitAfterKey('rail', 0.7, 'End', false)).toBe(SPLIT_LIMITS.rail.max);
    expect(splitAfterKey('rail', SPLIT_LIMITS.rail.max, 'ArrowRight', false)).toBe(SPLIT_LIMITS.rail.max);
  });

  it('tells a changed layout from the default', () => {
    expect(sameLayout(DEFAULT_LAYOUT, { ...DEFAULT_LAYOUT })).toBe(true);
    expect(sameLayout(DEFAULT_LAYOUT, setSplit(DEFAULT_LAYOUT, 'rows', 0.6))).toBe(false);
    expect(sameLayout(DEFAULT_LAYOUT, movePanel(DEFAULT_LAYOUT, 'drive', 'right'))).toBe(false);
  });

  it('turns the splits into grid tracks with gutters between the panels', () => {
    const layout = { ...DEFAULT_LAYOUT, splits: { columns: 0.5, middle: 0.25, rows: 0.75, rail: 0.8 } };
    expect(gridTemplate(layout, 8)).toEqual({
      columns: 'minmax(0, 40.000fr) 8px minmax(0, 10.000fr) 8px minmax(0, 30.000fr) 8px minmax(0, 20.000fr)',
      rows: 'minmax(0, 41.250fr) minmax(0, 33.750fr) 8px minmax(0, 25.000fr)',
    });
  });

  it('describes each separator as a focusable splitter whose value is its position in percent', () => {
    expect(separatorAria('columns', 0.574, 'Resize top panels')).toEqual({
      role: 'separator',
      tabindex: 0,
      'aria-label': 'Resize top panels',
      'aria-orientation': 'vertical',
      'aria-valuenow': 57,
      'aria-valuemin': 20,
      'aria-valuemax': 80,
    });
    expect(separatorAria('rows', 0.78, 'Resize bottom panel')['aria-orientation']).toBe('horizontal');
  });
});
