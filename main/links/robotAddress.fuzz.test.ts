// Robot addresses come from the command line (--robot) and the "Connect robot" dialog: any text. Each
// is read as one of the three kinds, with fields a link can open, or refused with a RobotAddressError
// that repeats the address and says what was expected.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../test/support/fuzz.ts';
import { parseRobotAddress, RobotAddressError } from './robotAddress.ts';

const addressText = fc.oneof(
  fc.string({ maxLength: 40, unit: 'binary' }),
  fc.constantFrom('', ' ', '\t\n'),
  fc
    .tuple(fc.constantFrom('ws://', 'wss://', 'serial:', 'serial:/dev/', 'serial:COM', 'sim', 'http://', ''), fc.string({ maxLength: 30 }))
    .map(([head, rest]) => head + rest),
  fc
    .tuple(
      fc.constantFrom('serial:/dev/ttyACM0', 'serial:COM3'),
      fc.string({ maxLength: 20 }),
      fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 8 })),
    )
    .map(([port, key, baud]) => `${port}?${key === '' ? 'baud' : key}=${String(baud)}`),
  fc.webUrl({ validSchemes: ['ws', 'wss'], withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom('ws://', 'wss://'),
      fc.oneof(
        fc.domain(),
        fc.ipV4(),
        fc.ipV6().map((ip) => `[${ip}]`),
        fc.constant(''),
      ),
      fc.oneof(
        fc.integer({ min: -1, max: 70_000 }).map((port) => `:${port}`),
        fc.constantFrom('', ':', ':abc'),
      ),
    )
    .map(([scheme, host, port]) => scheme + host + port),
);

describe('robot addresses under generated text', () => {
  it('reads an address a link can open, or refuses it naming the address', () => {
    fuzz(
      [fc.oneof(addressText, fc.constant(undefined))],
      (text) => {
        let spec: ReturnType<typeof parseRobotAddress>;
        try {
          spec = parseRobotAddress(text);
        } catch (error) {
          expect(error).toBeInstanceOf(RobotAddressError);
          const subject = text === undefined || text.trim() === '' ? 'no robot address given: ' : `${text}: `;
          expect((error as Error).message.startsWith(subject)).toBe(true);
          expect((error as Error).message.length).toBeGreaterThan(subject.length + 10);
          return;
        }
        if (spec.kind === 'websocket') expect(new URL(spec.url).protocol).toMatch(/^wss?:$/);
        if (spec.kind === 'serial') {
          expect(spec.path.startsWith('/') || /^COM\d+$/i.test(spec.path)).toBe(true);
          expect(Number.isInteger(spec.baud) && spec.baud >= 300 && spec.baud <= 4_000_000).toBe(true);
        }
      },
      { runs: 3000 },
    );
  });
});
