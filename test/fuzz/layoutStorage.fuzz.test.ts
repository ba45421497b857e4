// A saved layout comes back from localStorage, where anything may have been left: another version's
// layout, a hand-edited one, text that is not JSON, or a storage that throws. Loading never throws and
// always yields a usable layout (every panel in exactly one slot, every split within its limits); when
// the saved one is not used, a warning says why.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT, PANEL_IDS, SLOT_IDS, SPLIT_IDS, SPLIT_LIMITS, type Layout } from '../../renderer/src/lib/layout.ts';
import { LAYOUT_STORAGE_KEY, loadLayout, serializeLayout, type LayoutStore } from '../../renderer/src/lib/layoutStorage.ts';
import { reviewLayoutStore } from '../../renderer/src/lib/reviewLayout.ts';
import { fuzz, mutatedJson } from '../support/fuzz.ts';

const V1 = { version: 1, slots: { topLeft: 'camera', topRight: 'lidar', bottom: 'drive', right: 'status' }, splits: { columns: 0.57, rows: 0.78, rail: 0.75 } };
const V2 = {
  version: 2,
  slots: { topLeft: 'camera', topCentre: 'lidar', topRight: 'pointcloud', bottom: 'drive', right: 'status' },
  splits: { columns: 0.4, middle: 0.5, rows: 0.78, rail: 0.75 },
};
const CURRENT = JSON.parse(serializeLayout(DEFAULT_LAYOUT)) as unknown;
const layoutValue = fc.oneof(fc.constantFrom(...PANEL_IDS, ...SLOT_IDS, 1, 2, 0, 0.5, 1.5, -0.1, null), fc.double(), fc.string({ maxLength: 8 }));

function expectUsable(layout: Layout): void {
  expect(new Set(SLOT_IDS.map((slot) => layout.slots[slot])).size).toBe(PANEL_IDS.length);
  for (const slot of SLOT_IDS) expect(PANEL_IDS).toContain(layout.slots[slot]);
  for (const split of SPLIT_IDS) {
    const position = layout.splits[split];
    expect(position).toBeGreaterThanOrEqual(SPLIT_LIMITS[split].min);
    expect(position).toBeLessThanOrEqual(SPLIT_LIMITS[split].max);
  }
}

function storeWith(item: { text: string | null } | { throws: unknown }): LayoutStore {
  return {
    getItem: (key) => {
      if ('throws' in item) throw item.throws;
      return key === LAYOUT_STORAGE_KEY || key.endsWith(`:${LAYOUT_STORAGE_KEY}`) ? item.text : null;
    },
    setItem: () => undefined,
    removeItem: () => undefined,
  };
}

describe('the saved layout under generated storage contents', () => {
  it('always loads a usable layout, and warns in words when the saved one is not used', () => {
    const saved = fc.oneof(
      fc.record({ text: fc.oneof(fc.constant(null), fc.string({ maxLength: 80 }), fc.json({ maxDepth: 3 })) }),
      fc.record({
        text: fc
          .oneof(mutatedJson(CURRENT, layoutValue), mutatedJson(V2, layoutValue), mutatedJson(V1, layoutValue))
          .map((document) => JSON.stringify(document) ?? 'undefined'),
      }),
      // What Web Storage throws: a DOMException (storage disabled, quota), with any message.
      fc.record({
        throws: fc
          .tuple(fc.string({ maxLength: 20 }), fc.constantFrom('SecurityError', 'QuotaExceededError', 'InvalidStateError'))
          .map(([message, name]) => new DOMException(message, name)),
      }),
    );
    fuzz(
      [saved, fc.boolean()],
      (item, review) => {
        const warnings: string[] = [];
        const store = review ? reviewLayoutStore(storeWith(item)) : storeWith(item);
        const layout = loadLayout(store, (message) => warnings.push(message));
        expectUsable(layout);
        for (const warning of warnings) expect(warning).toMatch(/^\[reins\] .+; using the default layout$/);
        // The default object itself comes back only when the saved layout was not used (a usable one is read into a new object).
        const fellBack = layout === DEFAULT_LAYOUT && !('text' in item && item.text === null);
        expect(warnings.length > 0).toBe(fellBack);
      },
      { runs: 3000 },
    );
  });
});
