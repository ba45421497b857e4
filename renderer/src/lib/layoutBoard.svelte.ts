// The live layout the panels and separators share: every change is saved at once, so a reload
// restores exactly what the operator last saw.
import { createContext } from 'svelte';
import { DEFAULT_LAYOUT, movePanel, sameLayout, setSplit, slotOf, type Layout, type PanelId, type SlotId, type SplitId } from './layout.ts';
import { clearLayout, loadLayout, saveLayout, type LayoutStore, type Warn } from './layoutStorage.ts';

export class LayoutBoard {
  layout = $state.raw<Layout>(DEFAULT_LAYOUT);
  readonly #store: LayoutStore;
  readonly #warn: Warn;

  constructor(store: LayoutStore, warn: Warn = (message) => console.warn(message)) {
    this.#store = store;
    this.#warn = warn;
    this.layout = loadLayout(store, warn);
  }

  get isDefault(): boolean {
    return sameLayout(this.layout, DEFAULT_LAYOUT);
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
    this.layout = DEFAULT_LAYOUT;
    clearLayout(this.#store, this.#warn);
  }

  #commit(next: Layout): void {
    if (next === this.layout) return;
    this.layout = next;
    saveLayout(this.#store, next, this.#warn);
  }
}

export const [getLayoutBoard, setLayoutBoard] = createContext<LayoutBoard>();
