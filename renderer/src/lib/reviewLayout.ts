// Review mode's layout: the Review panel takes the Drive panel's place (nothing drives a replay),
// and by default the bottom row is taller, since the timeline and its plots live there. Saved apart
// from the driving layout, under keys of its own.
import { DEFAULT_LAYOUT, type Layout } from './layout.ts';
import type { LayoutStore } from './layoutStorage.ts';

export const REVIEW_LAYOUT: Layout = { ...DEFAULT_LAYOUT, splits: { ...DEFAULT_LAYOUT.splits, rows: 0.5 } };

const REVIEW_KEY_PREFIX = 'reins.review:';

/** The same storage with every key prefixed, so review mode's layout never overwrites the driving one. */
export function reviewLayoutStore(store: LayoutStore): LayoutStore {
  return {
    getItem: (key) => store.getItem(`${REVIEW_KEY_PREFIX}${key}`),
    setItem: (key, value) => store.setItem(`${REVIEW_KEY_PREFIX}${key}`, value),
    removeItem: (key) => store.removeItem(`${REVIEW_KEY_PREFIX}${key}`),
  };
}
