// Transient messages for the operator (refused requests, commands that could not be sent).
export type ToastKind = 'error' | 'info';

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  /** How many times the same message arrived while it was showing. */
  count: number;
}

const SHOW_MS = 5000;
const MAX_SHOWN = 4;

export class Toasts {
  items = $state<Toast[]>([]);
  #nextId = 1;
  readonly #timers = new Map<number, ReturnType<typeof setTimeout>>();

  push(kind: ToastKind, message: string): void {
    const same = this.items.find((toast) => toast.kind === kind && toast.message === message);
    if (same) {
      same.count++;
      this.#expireLater(same.id);
      return;
    }
    const toast: Toast = { id: this.#nextId++, kind, message, count: 1 };
    this.items = [...this.items, toast].slice(-MAX_SHOWN);
    this.#expireLater(toast.id);
  }

  dismiss(id: number): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
    this.items = this.items.filter((toast) => toast.id !== id);
  }

  #expireLater(id: number): void {
    clearTimeout(this.#timers.get(id));
    this.#timers.set(
      id,
      setTimeout(() => this.dismiss(id), SHOW_MS),
    );
  }
}
