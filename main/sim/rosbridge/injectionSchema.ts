// `/sim/inject` takes a SimInjection as its JSON args. The schema checks its shape (kind, fields,
// finite numbers, nothing unknown); the sim's own checkInjection then checks the ranges, so that the
// limits live in one place.
import { z } from 'zod';
import { checkInjection, type SimInjection } from '../injection.ts';
import { describeIssues } from './protocol.ts';

export const SimInjectionSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('shove'), forwardMps: z.number(), leftwardMps: z.number() }),
  z.strictObject({ kind: z.literal('drop-obstacle'), distanceM: z.number(), radiusM: z.number() }),
  z.strictObject({ kind: z.literal('freeze-camera'), durationMs: z.number() }),
  z.strictObject({ kind: z.literal('blackout-lidar'), durationMs: z.number() }),
  z.strictObject({
    kind: z.literal('flood'),
    stream: z.enum(['camera', 'scan', 'points', 'joints', 'imu', 'odom']),
    rateHz: z.number(),
    durationMs: z.number(),
  }),
  z.strictObject({ kind: z.literal('stall'), durationMs: z.number() }),
]) satisfies z.ZodType<SimInjection>;

// Fails to compile when SimInjection gains a kind that the schema above does not check yet.
type UncheckedKind = Exclude<SimInjection['kind'], z.infer<typeof SimInjectionSchema>['kind']>;
export const EVERY_INJECTION_KIND_IS_CHECKED: [UncheckedKind] extends [never] ? true : never = true;

export type ParsedInjection = { ok: true; injection: SimInjection } | { ok: false; message: string };

export function parseInjection(args: unknown): ParsedInjection {
  const result = SimInjectionSchema.safeParse(args);
  if (!result.success) return { ok: false, message: `not a valid injection: ${describeIssues(result.error)}` };
  try {
    checkInjection(result.data);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, message: error.message };
    throw error;
  }
  return { ok: true, injection: result.data };
}
