import { describe, expect, it } from 'vitest';
import { DEFAULT_LAYOUT, SLOT_IDS, setSplit } from './layout.ts';
import { LAYOUT_STORAGE_KEY, loadLayout, saveLayout, type LayoutStore } from './layoutStorage.ts';
import { REVIEW_LAYOUT, reviewLayoutStore } from './reviewLayout.ts';

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

describe('review mode’s layout', () => {
  it('keeps the panels where the driving layout has them, with a taller bottom row for the timeline', () => {
    for (const slot of SLOT_IDS) expect(REVIEW_LAYOUT.slots[slot]).toBe(DEFAULT_LAYOUT.slots[slot]);
    expect(REVIEW_LAYOUT.splits.rows).toBeLessThan(DEFAULT_LAYOUT.splits.rows);
  });

  it('is saved apart from the driving layout', () => {
    const storage = new MemoryStore();
    const warn = (message: string) => expect.fail(message);
    const live = setSplit(DEFAULT_LAYOUT, 'rows', 0.8);
    const review = setSplit(REVIEW_LAYOUT, 'rows', 0.45);
    saveLayout(storage, live, warn);
    saveLayout(reviewLayoutStore(storage), review, warn);
    expect(storage.items.size).toBe(2);
    expect(loadLayout(storage, warn).splits.rows).toBe(0.8);
    expect(loadLayout(reviewLayoutStore(storage), warn).splits.rows).toBe(0.45);
    // "Reset layout" in review mode forgets only the review layout.
    reviewLayoutStore(storage).removeItem(LAYOUT_STORAGE_KEY);
    expect(loadLayout(storage, warn).splits.rows).toBe(0.8);
    expect(loadLayout(reviewLayoutStore(storage), warn)).toBe(DEFAULT_LAYOUT);
  });
});
