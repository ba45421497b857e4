// rosbridge `fragment` ops, both ways. Outgoing: a text frame longer than a subscription's
// `fragment_size` goes as `{op: "fragment", id, data, num, total}` pieces. Unlike rosbridge_server
// (whose `total` is a float and whose `id` is 0 for every message, see RESEARCH.md), `total` is a
// whole number and `id` names the message, as the protocol says and roslib expects. Incoming: pieces
// are gathered by id, with a cap on their size and a deadline for the pieces still missing. A float
// `total` as rosbridge_server writes it is understood too: its fragmenter computes
// `(len - 1) / size + 1`, so floor(total) pieces make the message (5.08 → 5), while a sender that
// meant "length / size" needs ceil(total); from floor(total) pieces on, the message is complete once
// the joined text parses (a proper prefix of a JSON object never does).

export interface OutgoingFragment {
  op: 'fragment';
  id: string;
  data: string;
  num: number;
  total: number;
}

/** Splits text into fragment ops of at most fragmentSize characters of data each. */
export function fragmentText(text: string, fragmentSize: number, id: string): string[] {
  if (!(Number.isInteger(fragmentSize) && fragmentSize > 0)) throw new RangeError(`fragment size must be a whole number > 0, got ${fragmentSize}`);
  const total = Math.ceil(text.length / fragmentSize);
  const frames: string[] = [];
  for (let num = 0; num < total; num++) {
    const fragment: OutgoingFragment = { op: 'fragment', id, data: text.slice(num * fragmentSize, (num + 1) * fragmentSize), num, total };
    frames.push(JSON.stringify(fragment));
  }
  return frames;
}

export interface IncomingFragment {
  id: string | number;
  data: string;
  num: number;
  /** A whole number, or rosbridge_server's float (see the file comment). */
  total: number;
}

export type FragmentOutcome = { kind: 'pending' } | { kind: 'complete'; text: string } | { kind: 'refused'; message: string };

export interface FragmentAssemblerOptions {
  /** Most characters all unfinished messages of one client may hold together. */
  maxPendingChars: number;
  /** A message whose pieces have not all arrived this long after its first one is dropped. */
  timeoutMs: number;
  /** Called once per dropped message, with why. */
  onExpired: (id: string | number, message: string) => void;
}

interface PendingMessage {
  total: number;
  pieces: Map<number, string>;
  chars: number;
  timer: NodeJS.Timeout;
}

/** Most pieces one message may be cut into (a 10 MB message in 100-character pieces). */
const MAX_FRAGMENTS_PER_MESSAGE = 100_000;

export class FragmentAssembler {
  private readonly pending = new Map<string | number, PendingMessage>();
  private pendingChars = 0;

  constructor(private readonly options: FragmentAssemblerOptions) {}

  add(fragment: IncomingFragment): FragmentOutcome {
    const total = fragment.total;
    const maxPieces = Math.ceil(total);
    if (!(total >= 1 && maxPieces <= MAX_FRAGMENTS_PER_MESSAGE)) {
      return this.refuse(fragment.id, `fragment total must be between 1 and ${MAX_FRAGMENTS_PER_MESSAGE}, got ${fragment.total}`);
    }
    if (!(Number.isInteger(fragment.num) && fragment.num >= 0 && fragment.num < maxPieces)) {
      return this.refuse(fragment.id, `fragment num must be a whole number from 0 to ${maxPieces - 1}, got ${fragment.num}`);
    }
    let message = this.pending.get(fragment.id);
    if (message === undefined) {
      message = { total, pieces: new Map(), chars: 0, timer: this.startTimer(fragment.id) };
      this.pending.set(fragment.id, message);
    } else if (message.total !== total) {
      return this.refuse(fragment.id, `fragments of message ${JSON.stringify(fragment.id)} disagree on total (${message.total}, then ${total})`);
    }
    if (message.pieces.has(fragment.num)) return { kind: 'pending' };
    if (this.pendingChars + fragment.data.length > this.options.maxPendingChars) {
      return this.refuse(fragment.id, `fragmented message ${JSON.stringify(fragment.id)} is larger than the ${this.options.maxPendingChars}-byte limit`);
    }
    message.pieces.set(fragment.num, fragment.data);
    message.chars += fragment.data.length;
    this.pendingChars += fragment.data.length;
    const text = this.completeText(message);
    if (text === undefined) return { kind: 'pending' };
    this.drop(fragment.id);
    return { kind: 'complete', text };
  }

  private completeText(message: PendingMessage): string | undefined {
    const fewestPieces = Math.floor(message.total);
    if (message.pieces.size < fewestPieces) return undefined;
    const joined = (count: number): string | undefined => {
      const pieces = Array.from({ length: count }, (_, num) => message.pieces.get(num));
      return pieces.every((piece) => piece !== undefined) ? pieces.join('') : undefined;
    };
    if (message.pieces.size === Math.ceil(message.total)) return joined(message.pieces.size);
    const text = joined(fewestPieces);
    if (text === undefined) return undefined;
    try {
      JSON.parse(text);
      return text;
    } catch {
      return undefined;
    }
  }

  dispose(): void {
    for (const id of [...this.pending.keys()]) this.drop(id);
  }

  private startTimer(id: string | number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const message = this.pending.get(id);
      if (message === undefined) return;
      this.drop(id);
      this.options.onExpired(
        id,
        `fragmented message ${JSON.stringify(id)} never completed: ${message.pieces.size} of ${message.total} pieces arrived within ${this.options.timeoutMs} ms; dropped`,
      );
    }, this.options.timeoutMs);
    timer.unref();
    return timer;
  }

  private refuse(id: string | number, message: string): FragmentOutcome {
    this.drop(id);
    return { kind: 'refused', message };
  }

  private drop(id: string | number): void {
    const message = this.pending.get(id);
    if (message === undefined) return;
    clearTimeout(message.timer);
    this.pendingChars -= message.chars;
    this.pending.delete(id);
  }
}
