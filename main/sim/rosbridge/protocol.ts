// The rosbridge v2 ops a client may send, checked at the edge: a text frame becomes one typed op,
// or a message saying exactly what was wrong with it. Fields the protocol defines but this robot
// has no use for (latch, queue_size, timeout) are accepted and ignored, as rosbridge does.
import { z } from 'zod';
import { COMPRESSIONS } from './wireEncoding.ts';

const OpId = z.union([z.string().max(256), z.number()]).optional();
const RosName = z.string().min(1).max(256);
const Milliseconds = z.number().int().min(0).max(3_600_000);

export const AdvertiseOp = z.object({
  op: z.literal('advertise'),
  id: OpId,
  topic: RosName,
  type: RosName,
  latch: z.boolean().optional(),
  queue_size: z.number().int().min(0).optional(),
});
export type AdvertiseOp = z.infer<typeof AdvertiseOp>;

export const UnadvertiseOp = z.object({ op: z.literal('unadvertise'), id: OpId, topic: RosName });
export type UnadvertiseOp = z.infer<typeof UnadvertiseOp>;

export const PublishOp = z.object({ op: z.literal('publish'), id: OpId, topic: RosName, msg: z.unknown(), latch: z.boolean().optional() });
export type PublishOp = z.infer<typeof PublishOp>;

/** Most messages one subscription may ask to keep waiting. */
export const MAX_QUEUE_LENGTH = 100;
/** Smaller fragments would turn one camera frame into tens of thousands of frames. */
export const MIN_FRAGMENT_SIZE = 64;

export const SubscribeOp = z.object({
  op: z.literal('subscribe'),
  id: OpId,
  topic: RosName,
  type: z.string().max(256).optional(),
  throttle_rate: Milliseconds.optional(),
  queue_length: z.number().int().min(0).max(MAX_QUEUE_LENGTH).optional(),
  fragment_size: z.number().int().min(MIN_FRAGMENT_SIZE).optional(),
  compression: z.string().max(64).optional(),
});
export type SubscribeOp = z.infer<typeof SubscribeOp>;

export const UnsubscribeOp = z.object({ op: z.literal('unsubscribe'), id: OpId, topic: RosName });
export type UnsubscribeOp = z.infer<typeof UnsubscribeOp>;

export const CallServiceOp = z.object({
  op: z.literal('call_service'),
  id: OpId,
  service: RosName,
  args: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  timeout: z.number().optional(),
});
export type CallServiceOp = z.infer<typeof CallServiceOp>;

export const FragmentOp = z.object({
  op: z.literal('fragment'),
  id: z.union([z.string().max(256), z.number()]),
  data: z.string(),
  num: z.number().int().min(0),
  total: z.number().positive(),
});

export const StatusLevel = z.enum(['none', 'error', 'warning', 'info']);
export type StatusLevel = z.infer<typeof StatusLevel>;

export const SetLevelOp = z.object({ op: z.literal('set_level'), id: OpId, level: StatusLevel });

export const ClientOp = z.discriminatedUnion('op', [AdvertiseOp, UnadvertiseOp, PublishOp, SubscribeOp, UnsubscribeOp, CallServiceOp, FragmentOp, SetLevelOp]);
export type ClientOp = z.infer<typeof ClientOp>;
export type OpIdValue = string | number | undefined;

const SUPPORTED_OPS: ReadonlySet<string> = new Set(ClientOp.options.map((option) => option.shape.op.value));
/** Ops of the rosbridge protocol this robot does not serve: refused by name, not as unknown. */
const UNSERVED_OPS: ReadonlySet<string> = new Set([
  'advertise_service',
  'unadvertise_service',
  'service_response',
  'auth',
  'advertise_action',
  'unadvertise_action',
  'send_action_goal',
  'cancel_action_goal',
  'action_feedback',
  'action_result',
  'status',
  'png',
]);

export type ParsedOp = { ok: true; op: ClientOp } | { ok: false; message: string; id: OpIdValue };

export function parseClientOp(text: string): ParsedOp {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `not valid JSON: ${(error as Error).message}`, id: undefined };
  }
  return validateClientOp(json);
}

export function validateClientOp(json: unknown): ParsedOp {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, message: 'a rosbridge message must be a JSON object with an "op"', id: undefined };
  }
  const id = readId(json);
  const op = (json as { op?: unknown }).op;
  if (typeof op !== 'string') return { ok: false, message: 'the message has no string "op"', id };
  if (UNSERVED_OPS.has(op)) return { ok: false, message: `op "${op}" is not served by the simulated robot`, id };
  if (!SUPPORTED_OPS.has(op)) {
    return { ok: false, message: `unknown op "${op.slice(0, 64)}"; known: ${[...SUPPORTED_OPS].join(', ')}`, id };
  }
  const result = ClientOp.safeParse(json);
  if (!result.success) return { ok: false, message: `invalid "${op}": ${describeIssues(result.error)}`, id };
  return { ok: true, op: result.data };
}

export function isCompression(text: string): text is (typeof COMPRESSIONS)[number] {
  return (COMPRESSIONS as readonly string[]).includes(text);
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(message)'}: ${issue.message}`)
    .join('; ');
}

function readId(json: object): OpIdValue {
  const id = (json as { id?: unknown }).id;
  if (typeof id === 'string') return id.slice(0, 256);
  return typeof id === 'number' && Number.isFinite(id) ? id : undefined;
}
