// The live layout the panels and separators share: every change is saved at once, so a reload
// restores exactly what the operator last saw. Review mode keeps a layout of its own (another store
// and default), so arranging a review never disturbs the driving layout.
import { createContext } from 'svelte';
import { DEFAULT_LAYOUT, movePanel, sameLayout, setSplit, slotOf, type Layout, type PanelId, type SlotId, type SplitId } from './layout.ts';
import { clearLayout, loadLayout, saveLayout, type LayoutStore, type Warn } from './layoutStorage.ts';

export class LayoutBoard {
  layout = $state.raw<Layout>(DEFAULT_LAYOUT);
  #store: LayoutStore;
  #defaults: Layout;
  readonly #warn: Warn;

  constructor(store: LayoutStore, warn: Warn = (message) => console.warn(message), defaults: Layout = DEFAULT_LAYOUT) {
    this.#store = store;
    this.#warn = warn;
    this.#defaults = defaults;
    this.layout = this.#load();
  }

  get isDefault(): boolean {
    return sameLayout(this.layout, this.#defaults);
  }

  /** Uses another saved layout and default from now on (review mode's), loading what that store holds. */
  switchTo(store: LayoutStore, defaults: Layout): void {
    if (store === this.#store && defaults === this.#defaults) return;
    this.#store = store;
    this.#defaults = defaults;
    this.layout = this.#load();
  }

  slotOf(panel: PanelId): SlotId {
    return slotOf(this.layout, panel);
  }

  move(panel: PanelId, to: SlotId): void {
    this.#commit(movePanel(this.layout, panel, to));
  }

  setSplit(split: SplitId, position: number): void {
    this.#commit(setSplit(this.layout, split, position));
  }

  reset(): void {
    this.layout = this.#defaults;
    clearLayout(this.#store, this.#warn);
  }

  /** Nothing saved (or nothing usable) means this board's own default. */
  #load(): Layout {
    const loaded = loadLayout(this.#store, this.#warn);
    return loaded === DEFAULT_LAYOUT ? this.#defaults : loaded;
  }

  #commit(next: Layout): void {
    if (next === this.layout) return;
    this.layout = next;
    saveLayout(this.#store, next, this.#warn);
  }
}

export const [getLayoutBoard, setLayoutBoard] = createContext<LayoutBoard>();
