// Transient-local channels over the foxglove protocol. foxglove_bridge subscribes to a ROS 2 topic
// once per client, so a transient-local publisher's last message (/tf_static, /robot_description,
// /map) reaches every client as it subscribes, not only the first. @foxglove/ws-protocol's server
// reports only a channel's first subscriber, so each client's subscribe ops are followed here and
// the last message is sent to its new subscription directly.
import { z } from 'zod';

/** The foxglove protocol's binary opcode for message data: subscription id (uint32), log time (uint64 ns), payload. */
const MESSAGE_DATA_OPCODE = 1;
const MESSAGE_DATA_HEADER_BYTES = 1 + 4 + 8;

const ClientOp = z.discriminatedUnion('op', [
  z.object({ op: z.literal('subscribe'), subscriptions: z.array(z.object({ id: z.number().int(), channelId: z.number().int() })) }),
  z.object({ op: z.literal('unsubscribe'), subscriptionIds: z.array(z.number().int()) }),
]);

interface LatchedMessage {
  logTimeNs: bigint;
  payload: Uint8Array;
}

export class LatchedChannels {
  private readonly latest = new Map<number, LatchedMessage>();

  /** `isChannel`: whether the server offers a channel (a subscription to any other it ignores). */
  constructor(private readonly isChannel: (channelId: number) => boolean) {}

  /** A latched channel's newest message, for the clients that subscribe from now on. */
  keep(channelId: number, logTimeNs: bigint, payload: Uint8Array): void {
    this.latest.set(channelId, { logTimeNs, payload });
  }

  /**
   * Follows one client's subscriptions as the server holds them: call the returned function with
   * each text op the client sends, after the server has handled it. A new subscription to a latched
   * channel is sent that channel's newest message through `send`.
   */
  follow(send: (frame: Uint8Array) => void): (text: string) => void {
    const channelOfSubscription = new Map<number, number>();
    return (text) => {
      const op = parseOp(text);
      if (op?.op === 'unsubscribe') {
        for (const id of op.subscriptionIds) channelOfSubscription.delete(id);
        return;
      }
      for (const { id, channelId } of op?.subscriptions ?? []) {
        // What the server ignores (a reused id, a second subscription to a channel, no such channel) is ignored here too.
        if (channelOfSubscription.has(id) || [...channelOfSubscription.values()].includes(channelId) || !this.isChannel(channelId)) continue;
        channelOfSubscription.set(id, channelId);
        const latest = this.latest.get(channelId);
        if (latest !== undefined) send(messageDataFrame(id, latest));
      }
    };
  }
}

/** A subscribe or unsubscribe op; undefined for any other (the server has answered those, and any it could not read). */
function parseOp(text: string): z.infer<typeof ClientOp> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = ClientOp.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function messageDataFrame(subscriptionId: number, { logTimeNs, payload }: LatchedMessage): Uint8Array {
  const frame = new Uint8Array(MESSAGE_DATA_HEADER_BYTES + payload.byteLength);
  const view = new DataView(frame.buffer);
  view.setUint8(0, MESSAGE_DATA_OPCODE);
  view.setUint32(1, subscriptionId, true);
  view.setBigUint64(5, logTimeNs, true);
  frame.set(payload, MESSAGE_DATA_HEADER_BYTES);
  return frame;
}
