// The saved layout: written to localStorage on every change and read back, checked, on start. A
// corrupt or foreign layout is never trusted: the default is used and the reason logged. A layout
// saved before the point-cloud panel existed (version 1) or before the plot panel (version 2) is kept,
// with the new panels added.
import { z } from 'zod';
import { DEFAULT_LAYOUT, PANEL_IDS, SLOT_IDS, clampSplit, type Layout } from './layout.ts';

export const LAYOUT_STORAGE_KEY = 'reins.layout';
/** Bump when the saved shape changes; a layout saved by another version falls back to the default. */
export const LAYOUT_VERSION = 3;

const Panel = z.enum(PANEL_IDS);
const Position = z.number().min(0).max(1);
const ONE_SLOT_EACH = { message: 'every panel must be in exactly one slot', path: ['slots'] };

const SavedLayout = z
  .object({
    version: z.literal(LAYOUT_VERSION),
    slots: z.object({ topLeft: Panel, topCentre: Panel, topRight: Panel, bottom: Panel, bottomRight: Panel, right: Panel }),
    splits: z.object({ columns: Position, middle: Position, rows: Position, rail: Position }),
  })
  .refine((saved) => new Set(SLOT_IDS.map((slot) => saved.slots[slot])).size === SLOT_IDS.length, ONE_SLOT_EACH);

/** Version 2: five panels in five slots, before the plot panel; it takes the new bottom right slot. */
const V2_SLOTS = ['topLeft', 'topCentre', 'topRight', 'bottom', 'right'] as const;
const SavedLayoutV2 = z
  .object({
    version: z.literal(2),
    slots: z.object({ topLeft: Panel, topCentre: Panel, topRight: Panel, bottom: Panel, right: Panel }),
    splits: z.object({ columns: Position, middle: Position, rows: Position, rail: Position }),
  })
  .refine(
    (saved) => new Set(V2_SLOTS.map((slot) => saved.slots[slot])).size === V2_SLOTS.length && !V2_SLOTS.some((slot) => saved.slots[slot] === 'plot'),
    ONE_SLOT_EACH,
  )
  .transform(({ slots, splits }) => ({ slots: { ...slots, bottomRight: 'plot' as const }, splits }));

/** Version 1: four panels in four slots, before the point cloud. */
const V1_SLOTS = ['topLeft', 'topRight', 'bottom', 'right'] as const;
const SavedLayoutV1 = z
  .object({
    version: z.literal(1),
    slots: z.object({ topLeft: Panel, topRight: Panel, bottom: Panel, right: Panel }),
    splits: z.object({ columns: Position, rows: Position, rail: Position }),
  })
  .refine(
    (saved) =>
      new Set(V1_SLOTS.map((slot) => saved.slots[slot])).size === V1_SLOTS.length &&
      !V1_SLOTS.some((slot) => saved.slots[slot] === 'pointcloud' || saved.slots[slot] === 'plot'),
    ONE_SLOT_EACH,
  )
  .transform(({ slots, splits }) => ({
    // The operator's arrangement stays as it was; the top right panel moves one slot in, and the point cloud takes the new top right.
    slots: {
      topLeft: slots.topLeft,
      topCentre: slots.topRight,
      topRight: 'pointcloud' as const,
      bottom: slots.bottom,
      bottomRight: 'plot' as const,
      right: slots.right,
    },
    splits: { ...splits, middle: DEFAULT_LAYOUT.splits.middle },
  }));

/** The part of the Web Storage API the layout uses. */
export type LayoutStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

export type Warn = (message: string) => void;

export function parseLayout(text: string | null, warn: Warn): Layout {
  if (text === null) return DEFAULT_LAYOUT;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    warn('[reins] saved layout is not JSON; using the default layout');
    return DEFAULT_LAYOUT;
  }
  const version = typeof json === 'object' && json !== null && 'version' in json ? json.version : undefined;
  const parsed = (version === 1 ? SavedLayoutV1 : version === 2 ? SavedLayoutV2 : SavedLayout).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    warn(`[reins] saved layout not usable (${issue ? `${issue.path.join('.') || 'layout'}: ${issue.message}` : 'unknown problem'}); using the default layout`);
    return DEFAULT_LAYOUT;
  }
  const { slots, splits } = parsed.data;
  return {
    slots,
    splits: {
      columns: clampSplit('columns', splits.columns),
      middle: clampSplit('middle', splits.middle),
      rows: clampSplit('rows', splits.rows),
      rail: clampSplit('rail', splits.rail),
    },
  };
}

export function loadLayout(store: LayoutStore, warn: Warn): Layout {
  let text: string | null;
  try {
    text = store.getItem(LAYOUT_STORAGE_KEY);
  } catch (error) {
    warn(`[reins] saved layout could not be read (${String(error)}); using the default layout`);
    return DEFAULT_LAYOUT;
  }
  return parseLayout(text, warn);
}

export function serializeLayout(layout: Layout): string {
  return JSON.stringify({ version: LAYOUT_VERSION, slots: layout.slots, splits: layout.splits });
}

/** Saves the layout; a full or disabled storage costs only the saved layout, so it is logged, not raised. */
export function saveLayout(store: LayoutStore, layout: Layout, warn: Warn): void {
  try {
    store.setItem(LAYOUT_STORAGE_KEY, serializeLayout(layout));
  } catch (error) {
    warn(`[reins] layout not saved (${String(error)})`);
  }
}

/** Forgets the saved layout so the next start uses the default too. */
export function clearLayout(store: LayoutStore, warn: Warn): void {
  try {
    store.removeItem(LAYOUT_STORAGE_KEY);
  } catch (error) {
    warn(`[reins] saved layout not cleared (${String(error)})`);
  }
}
