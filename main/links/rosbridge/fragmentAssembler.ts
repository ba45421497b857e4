// Reassembles rosbridge `fragment` ops into the JSON message they split. A real rosbridge_server
// (ROS 1, 0.11) has two quirks (fixtures/rosbridge-ros1/image-rgb8-json-fragmented): `id` is 0 for
// every message, so fragments are told apart only by arrival order (a new `num: 0` starts a new
// message), and `total` is a float. Its fragmenter computes `(len - 1) / size + 1` in Python 3
// float division, so the true fragment count is floor(total) (5.08 → 5); a server that meant
// "length / size, rounded up" would need ceil(total). Both are accepted: from floor(total)
// fragments on, the message is complete once the joined text parses (a proper prefix of a JSON
// object never does), and it is abandoned past ceil(total).
import { describeWireValue } from './decode/wireFields.ts';

export interface FragmentResult {
  /** Whether this fragment completed a message, which is then in `message`. */
  complete: boolean;
  message?: unknown;
  /** What was lost or refused, if anything (a fragment that starts a new message is still kept). */
  problem?: string;
}

const PENDING: FragmentResult = Object.freeze({ complete: false });

/** A field's value for a problem message: numbers as they are, anything else described (String() can throw). */
const shown = (value: unknown): string => (typeof value === 'number' ? String(value) : describeWireValue(value));

interface PartialMessage {
  parts: string[];
  received: number;
  chars: number;
  total: number;
}

/** Bounds on what a hostile or broken server can make the client hold. */
export interface FragmentLimits {
  maxChars: number;
  maxFragments: number;
  maxPartialMessages: number;
}

export const DEFAULT_FRAGMENT_LIMITS: Readonly<FragmentLimits> = Object.freeze({
  maxChars: 64 * 1024 * 1024,
  maxFragments: 1_000_000,
  maxPartialMessages: 16,
});

export class FragmentAssembler {
  private readonly partials = new Map<string, PartialMessage>();

  constructor(private readonly limits: Readonly<FragmentLimits> = DEFAULT_FRAGMENT_LIMITS) {}

  add(fragment: Readonly<Record<string, unknown>>): FragmentResult {
    const { id, data, num, total } = fragment;
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof data !== 'string') {
      return { complete: false, problem: 'fragment without a string or number id and string data' };
    }
    if (typeof num !== 'number' || !Number.isInteger(num) || num < 0 || typeof total !== 'number' || !(total >= 1) || total > this.limits.maxFragments) {
      return { complete: false, problem: `fragment with num ${shown(num)} and total ${shown(total)}` };
    }
    const key = String(id);
    let lost: string | undefined;
    let partial = this.partials.get(key);
    if (partial !== undefined && num === 0) {
      lost = `a message of ${Math.floor(partial.total)} fragments was dropped after ${partial.received} arrived`;
      partial = undefined;
    }
    if (partial === undefined) {
      if (num !== 0) return { complete: false, problem: `fragment ${num} arrived without fragment 0 before it` };
      partial = { parts: [], received: 0, chars: 0, total };
      this.remember(key, partial);
    }
    if (num >= Math.ceil(partial.total)) return this.abandon(key, `fragment ${num} is beyond total ${partial.total}`);
    if (partial.parts[num] === undefined) {
      partial.parts[num] = data;
      partial.received++;
      partial.chars += data.length;
    }
    if (partial.chars > this.limits.maxChars) return this.abandon(key, `message exceeds ${this.limits.maxChars} characters`);
    const result = this.tryComplete(key, partial);
    return lost === undefined ? result : { ...result, problem: lost };
  }

  private tryComplete(key: string, partial: PartialMessage): FragmentResult {
    const contiguous = partial.parts.findIndex((part) => part === undefined);
    const have = contiguous < 0 ? partial.parts.length : contiguous;
    if (have < Math.floor(partial.total)) return PENDING;
    try {
      const message: unknown = JSON.parse(partial.parts.slice(0, have).join(''));
      this.partials.delete(key);
      return { complete: true, message };
    } catch {
      if (have >= Math.ceil(partial.total)) return this.abandon(key, `${have} fragments did not form a JSON message`);
      return PENDING;
    }
  }

  private remember(key: string, partial: PartialMessage): void {
    this.partials.set(key, partial);
    // Evict the oldest unfinished message rather than grow without bound.
    while (this.partials.size > this.limits.maxPartialMessages) {
      const oldest = this.partials.keys().next().value;
      if (oldest === undefined) break;
      this.partials.delete(oldest);
    }
  }

  private abandon(key: string, problem: string): FragmentResult {
    this.partials.delete(key);
    return { complete: false, problem };
  }
}
