// What every message decoder returns: the normalised message and its source stamp, or a clear
// reason with a hint. Decoders are pure functions of the wire value; they never throw.
import { isWireRecord, WireFieldError, WireObject } from './wireFields.ts';

export interface DecodeSuccess<M> {
  ok: true;
  msg: M;
  /** The robot's stamp in ms since the epoch on the robot's clock; undefined when unstamped. */
  stampMs: number | undefined;
  /** The message with its ROS field names, where the wire value is not that (cbor-raw: read from the CDR). */
  fields?: unknown;
  /** The message's CDR bytes (with the encapsulation header), where it arrived as such (cbor-raw). */
  cdr?: Uint8Array;
}

export interface DecodeFailure {
  ok: false;
  problem: string;
  hint: string;
}

export type Decoded<M> = DecodeSuccess<M> | DecodeFailure;

export interface Header {
  frameId: string;
  stampMs: number | undefined;
}

const NANOS_PER_SEC = 1_000_000_000;

/** A ROS time, `{secs, nsecs}` (ROS 1) or `{sec, nanosec}` (ROS 2), in ms; a zero stamp means unstamped. */
export function readStampMs(stamp: WireObject): number | undefined {
  const ros2 = stamp.has('sec');
  const secs = ros2 ? stamp.count('sec') : stamp.count('secs');
  const nanos = ros2 ? stamp.count('nanosec') : stamp.count('nsecs');
  if (nanos >= NANOS_PER_SEC) {
    throw new WireFieldError(`${stamp.path}.${ros2 ? 'nanosec' : 'nsecs'}`, `expected less than 1e9 nanoseconds, got ${nanos}`);
  }
  if (secs === 0 && nanos === 0) return undefined;
  return secs * 1000 + nanos / 1e6;
}

export function readHeader(message: WireObject): Header {
  const header = message.object('header');
  return { frameId: header.string('frame_id'), stampMs: readStampMs(header.object('stamp')) };
}

export class DecodeProblem extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'DecodeProblem';
  }
}

/**
 * Runs a decoder body, turning a malformed field (or any other failure inside a third-party codec)
 * into a failure value, so bad input from a robot never escapes as an exception.
 */
export function decodeWith<M>(
  wire: unknown,
  typeName: string,
  defaultHint: string,
  body: (message: WireObject) => { msg: M; stampMs: number | undefined },
): Decoded<M> {
  if (isCborRaw(wire)) {
    return {
      ok: false,
      problem: `${typeName} arrived as cbor-raw (ROS-serialised bytes), which the cockpit does not decode`,
      hint: 'Subscribe with compression "cbor" or "none" instead of "cbor-raw".',
    };
  }
  try {
    const { msg, stampMs } = body(WireObject.root(wire, 'msg'));
    return { ok: true, msg, stampMs };
  } catch (error) {
    if (error instanceof WireFieldError || error instanceof DecodeProblem) {
      return { ok: false, problem: `bad ${typeName}: ${error.message}`, hint: error.hint ?? defaultHint };
    }
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, problem: `could not decode ${typeName}: ${reason}`, hint: defaultHint };
  }
}

/** rosbridge's cbor-raw shape: `{secs, nsecs, bytes}` holding the ROS-serialised message. */
function isCborRaw(wire: unknown): boolean {
  return isWireRecord(wire) && wire['bytes'] instanceof Uint8Array && 'secs' in wire && 'nsecs' in wire && Object.keys(wire).length === 3;
}
