// One message the robot published, on its way to every client that subscribed. It is encoded at
// most once per wire form (compression and fragment size), and only when a client is about to be
// sent it: a message dropped from every slow client's queue is never encoded at all.
import { fragmentText } from './fragments.ts';
import type { RosMessage, RosValue } from './rosMessages.ts';
import { encodeOp, type Compression, type WireFrame } from './wireEncoding.ts';

export interface WireForm {
  compression: Compression;
  /** Text frames longer than this go as fragments; binary (CBOR) frames are never fragmented. */
  fragmentSize: number | undefined;
}

export class OutgoingMessage {
  /** Roughly what this message holds in memory, for the per-subscription queue budget. */
  readonly approxBytes: number;
  private readonly encodings = new Map<string, readonly WireFrame[]>();

  constructor(
    readonly topic: string,
    readonly msg: RosMessage,
    /** Names this message in fragment ops: unique per topic. */
    readonly fragmentId: string,
  ) {
    this.approxBytes = approxBytesOf(msg);
  }

  frames(form: WireForm): readonly WireFrame[] {
    const key = `${form.compression}/${form.fragmentSize ?? 0}`;
    let frames = this.encodings.get(key);
    if (frames === undefined) {
      frames = this.encode(form);
      this.encodings.set(key, frames);
    }
    return frames;
  }

  private encode({ compression, fragmentSize }: WireForm): readonly WireFrame[] {
    const frame = encodeOp({ op: 'publish', topic: this.topic, msg: this.msg }, compression);
    if (typeof frame !== 'string' || fragmentSize === undefined || frame.length <= fragmentSize) return [frame];
    return fragmentText(frame, fragmentSize, this.fragmentId);
  }
}

function approxBytesOf(value: RosValue): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object') return 8;
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.reduce<number>((sum, item) => sum + 16 + approxBytesOf(item as RosValue), 0);
}
