// One message the robot published, on its way to every client that subscribed. It is encoded at
// most once per wire form (compression and fragment size), and only when a client is about to be
// sent it: a message dropped from every slow client's queue is never encoded at all.
import { cdrBytes } from './cdrEncoding.ts';
import { fragmentText } from './fragments.ts';
import { rosTimeFromMs, type RosMessage, type RosValue } from './rosMessages.ts';
import { encodeOp, type Compression, type WireFrame } from './wireEncoding.ts';

export interface WireForm {
  compression: Compression;
  /** Text frames longer than this go as fragments; binary (CBOR) frames are never fragmented. */
  fragmentSize: number | undefined;
}

/** What a `cbor-raw` subscription needs besides the message: its ROS 2 type and when the bridge got it. */
export interface RawSource {
  rosType: string;
  /** On the robot's clock: rosbridge_suite sends its own receive time, not the message's stamp. */
  receivedMs: number;
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
    /** Undefined where this robot does not serve cbor-raw (the ROS 1 persona). */
    private readonly raw?: RawSource,
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
    const frame = encodeOp({ op: 'publish', topic: this.topic, msg: compression === 'cbor-raw' ? this.rawMsg() : this.msg }, compression);
    if (typeof frame !== 'string' || fragmentSize === undefined || frame.length <= fragmentSize) return [frame];
    return fragmentText(frame, fragmentSize, this.fragmentId);
  }

  private rawMsg(): object {
    if (this.raw === undefined) throw new Error(`${this.topic} is not served as cbor-raw`);
    const { secs, nsecs } = rosTimeFromMs(this.raw.receivedMs);
    return { secs, nsecs, bytes: cdrBytes(this.raw.rosType, this.msg) };
  }
}

function approxBytesOf(value: RosValue): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object') return 8;
  const items = Array.isArray(value) ? value : Object.values(value);
  return items.reduce<number>((sum, item) => sum + 16 + approxBytesOf(item as RosValue), 0);
}
