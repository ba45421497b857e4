// `--robot TEXT` as typed on the command line: a robot spec, or a UsageError (printed without a stack,
// exit code 2) that names the option; never any other error.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../test/support/fuzz.ts';
import { parseRobotSpec } from './args.ts';
import { UsageError } from './usageError.ts';

describe('--robot under generated text', () => {
  it('gives a spec or a UsageError naming --robot', () => {
    const text = fc.oneof(
      fc.string({ maxLength: 40, unit: 'binary' }),
      fc.tuple(fc.constantFrom('ws://', 'wss://', 'serial:', 'serial:/dev/tty', 'sim'), fc.string({ maxLength: 30 })).map(([head, rest]) => head + rest),
    );
    fuzz(
      [text],
      (input) => {
        try {
          expect(['sim', 'websocket', 'foxglove', 'serial']).toContain(parseRobotSpec(input).kind);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
          const subject = input.trim() === '' ? 'no robot address given' : input;
          expect((error as Error).message.startsWith(`--robot ${subject}: `)).toBe(true);
          expect((error as Error).message.length).toBeGreaterThan(`--robot ${subject}: `.length + 10);
        }
      },
      { runs: 2000 },
    );
  });
});
