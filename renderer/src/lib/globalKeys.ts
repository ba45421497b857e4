// Keys that work anywhere in the cockpit, not just on the drive pad.
export type GlobalKeyAction = 'estop' | 'take-over' | 'hand-back' | 'rate-good' | 'rate-bad' | 'undo';

export interface KeyPress {
  key: string;
  code: string;
  repeat: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** The key went to a text field, where letters are typing, not commands. */
  inEditableField: boolean;
}

/** Space or Escape: e-stop, whatever has focus and whatever else is held. */
export function isEstopKey(press: Pick<KeyPress, 'key' | 'code'>): boolean {
  return press.code === 'Space' || press.key === ' ' || press.key === 'Escape' || press.code === 'Escape';
}

export function globalKeyAction(press: KeyPress): GlobalKeyAction | undefined {
  if (isEstopKey(press)) return 'estop';
  if (press.repeat || press.inEditableField || press.ctrlKey || press.metaKey || press.altKey) return undefined;
  switch (press.key.toLowerCase()) {
    case 't':
      return 'take-over';
    case 'h':
      return 'hand-back';
    case 'g':
      return 'rate-good';
    case 'b':
      return 'rate-bad';
    case 'u':
      return 'undo';
    default:
      return undefined;
  }
}
