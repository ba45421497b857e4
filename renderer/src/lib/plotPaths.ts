// The plot panel's field paths, kept in localStorage so a reload plots what the operator last chose.
// What comes back is checked: only paths that parse are kept, at most MAX_PLOT_SERIES, none twice.
import { MAX_PLOT_SERIES, parseFieldPath } from './contract.ts';
import type { LayoutStore } from './layoutStorage.ts';

export const PLOT_PATHS_STORAGE_KEY = 'reins.plot.paths';

export function loadPlotPaths(store: Pick<LayoutStore, 'getItem'>, warn: (message: string) => void = (message) => console.warn(message)): string[] {
  let json: unknown;
  try {
    const text = store.getItem(PLOT_PATHS_STORAGE_KEY);
    if (text === null) return [];
    json = JSON.parse(text);
  } catch (error) {
    warn(`[reins] saved plot paths not usable (${String(error)}); the plot starts empty`);
    return [];
  }
  if (!Array.isArray(json)) {
    warn('[reins] saved plot paths are not a list; the plot starts empty');
    return [];
  }
  const paths: string[] = [];
  for (const item of json) {
    const parsed = typeof item === 'string' ? parseFieldPath(item) : undefined;
    if (parsed?.ok && !paths.includes(parsed.path.text) && paths.length < MAX_PLOT_SERIES) paths.push(parsed.path.text);
  }
  return paths;
}

/** Saves the paths; a full or disabled storage costs only the saved list, so it is logged, not raised. */
export function savePlotPaths(
  store: Pick<LayoutStore, 'setItem'>,
  paths: readonly string[],
  warn: (message: string) => void = (message) => console.warn(message),
): void {
  try {
    store.setItem(PLOT_PATHS_STORAGE_KEY, JSON.stringify(paths));
  } catch (error) {
    warn(`[reins] plot paths not saved (${String(error)})`);
  }
}
