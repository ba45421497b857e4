// The cockpit's panel layout: which panel sits in which slot, and where the four splits between the
// slots lie. Pure values and functions; the reactive board and its storage live elsewhere.
//
//   ┌─────────┬───────────┬──────────┬───────┐
//   │ topLeft │ topCentre │ topRight │       │   columns split: topLeft | the other two
//   ├─────────┴───────────┼──────────┤ right │   middle split:  topCentre | topRight (and bottom | bottomRight)
//   │ bottom              │bottomRigh│       │   rows split:    top row | bottom row
//   └─────────────────────┴──────────┴───────┘   rail split:    left part | right
export const PANEL_IDS = ['camera', 'lidar', 'pointcloud', 'status', 'drive', 'plot'] as const;
export type PanelId = (typeof PANEL_IDS)[number];

export const SLOT_IDS = ['topLeft', 'topCentre', 'topRight', 'bottom', 'bottomRight', 'right'] as const;
export type SlotId = (typeof SLOT_IDS)[number];

export const SPLIT_IDS = ['columns', 'middle', 'rows', 'rail'] as const;
export type SplitId = (typeof SPLIT_IDS)[number];

export const SLOT_LABEL: Readonly<Record<SlotId, string>> = {
  topLeft: 'Top left',
  topCentre: 'Top centre',
  topRight: 'Top right',
  bottom: 'Bottom',
  bottomRight: 'Bottom right',
  right: 'Right',
};

/** Where each split may lie, as a fraction of its span from the left (columns, rail) or top (rows). */
export const SPLIT_LIMITS: Readonly<Record<SplitId, { min: number; max: number }>> = {
  columns: { min: 0.2, max: 0.8 },
  middle: { min: 0.2, max: 0.8 },
  rows: { min: 0.4, max: 0.88 },
  rail: { min: 0.5, max: 0.85 },
};

/** One arrow key press moves a split this far; with Shift, KEY_STEP_LARGE. */
export const KEY_STEP = 0.02;
export const KEY_STEP_LARGE = 0.1;

export interface Layout {
  /** The panel in each slot: every panel exactly once. */
  slots: Readonly<Record<SlotId, PanelId>>;
  /** Each split's position along its span, 0–1. */
  splits: Readonly<Record<SplitId, number>>;
}

export const DEFAULT_LAYOUT: Layout = {
  slots: { topLeft: 'camera', topCentre: 'lidar', topRight: 'pointcloud', bottom: 'drive', bottomRight: 'plot', right: 'status' },
  splits: { columns: 0.4, middle: 0.5, rows: 0.78, rail: 0.75 },
};

export function slotOf(layout: Layout, panel: PanelId): SlotId {
  const slot = SLOT_IDS.find((candidate) => layout.slots[candidate] === panel);
  if (!slot) throw new Error(`layout has no slot for panel '${panel}'`);
  return slot;
}

/** Puts a panel in a slot; the panel that was there takes the moved panel's old slot. */
export function movePanel(layout: Layout, panel: PanelId, to: SlotId): Layout {
  const from = slotOf(layout, panel);
  if (from === to) return layout;
  return { ...layout, slots: { ...layout.slots, [from]: layout.slots[to], [to]: panel } };
}

export function clampSplit(split: SplitId, position: number): number {
  const { min, max } = SPLIT_LIMITS[split];
  return Math.min(max, Math.max(min, position));
}

export function setSplit(layout: Layout, split: SplitId, position: number): Layout {
  if (!Number.isFinite(position)) return layout;
  return { ...layout, splits: { ...layout.splits, [split]: clampSplit(split, position) } };
}

/** Where a pointer at `pointer` puts a split spanning `start`–`end` (pixels on the same axis). */
export function splitAtPointer(pointer: number, start: number, end: number): number {
  return end > start ? (pointer - start) / (end - start) : Number.NaN;
}

/** Moves a split for a key press, following the ARIA window-splitter pattern; undefined for other keys. */
export function splitAfterKey(split: SplitId, position: number, key: string, shiftKey: boolean): number | undefined {
  const step = shiftKey ? KEY_STEP_LARGE : KEY_STEP;
  const vertical = split !== 'rows';
  const decrease = vertical ? 'ArrowLeft' : 'ArrowUp';
  const increase = vertical ? 'ArrowRight' : 'ArrowDown';
  switch (key) {
    case decrease:
      return clampSplit(split, position - step);
    case increase:
      return clampSplit(split, position + step);
    case 'Home':
      return SPLIT_LIMITS[split].min;
    case 'End':
      return SPLIT_LIMITS[split].max;
    default:
      return undefined;
  }
}

export function sameLayout(a: Layout, b: Layout): boolean {
  return SLOT_IDS.every((slot) => a.slots[slot] === b.slots[slot]) && SPLIT_IDS.every((split) => a.splits[split] === b.splits[split]);
}

/** The share of the top row's height that the right slot keeps above the Learning panel beneath it. */
export const RIGHT_SLOT_SHARE_OF_TOP = 0.55;

/**
 * CSS grid tracks for the layout: panels and 8 px gutters (the separators) between them. The top
 * row is two tracks, so that the right column can hold the right slot above the Learning panel.
 */
export function gridTemplate(layout: Layout, gutterPx: number): { columns: string; rows: string } {
  const { columns, middle, rows, rail } = layout.splits;
  const fr = (share: number): string => `minmax(0, ${(share * 100).toFixed(3)}fr)`;
  const rest = rail * (1 - columns);
  return {
    columns: [fr(rail * columns), `${gutterPx}px`, fr(rest * middle), `${gutterPx}px`, fr(rest * (1 - middle)), `${gutterPx}px`, fr(1 - rail)].join(' '),
    rows: [fr(rows * RIGHT_SLOT_SHARE_OF_TOP), fr(rows * (1 - RIGHT_SLOT_SHARE_OF_TOP)), `${gutterPx}px`, fr(1 - rows)].join(' '),
  };
}

/**
 * The ARIA of a focusable separator (the window-splitter pattern): its value is the split's
 * position in percent. WAI-ARIA counts a focusable separator as a widget; Svelte's linter counts
 * every separator as static, so the component spreads these rather than writing them inline.
 */
export function separatorAria(split: SplitId, position: number, label: string) {
  return {
    role: 'separator',
    tabindex: 0,
    'aria-label': label,
    'aria-orientation': split === 'rows' ? 'horizontal' : 'vertical',
    'aria-valuenow': Math.round(position * 100),
    'aria-valuemin': Math.round(SPLIT_LIMITS[split].min * 100),
    'aria-valuemax': Math.round(SPLIT_LIMITS[split].max * 100),
  } as const;
}
