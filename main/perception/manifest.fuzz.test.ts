// An encoder manifest is a file a user may bring: the shipped one with fields replaced, removed or
// added, and text that is not JSON at all. parseEncoderManifest returns a manifest or throws an Error
// that names the file and what is wrong with it; nothing else escapes.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz, mutatedJson } from '../../test/support/fuzz.ts';
import { fusionLayout, parseEncoderManifest } from './manifest.ts';

const SHIPPED = JSON.parse(readFileSync(new URL('../../models/manifest.json', import.meta.url), 'utf8')) as unknown;
const PATH = '/models/manifest.json';

function expectManifestOrClearError(text: string): void {
  let manifest: ReturnType<typeof parseEncoderManifest>;
  try {
    manifest = parseEncoderManifest(text, PATH);
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(new RegExp(`^encoder manifest ${PATH} (is not valid JSON|is invalid): .+`));
    return;
  }
  const layout = fusionLayout(manifest);
  expect(Object.values(layout).every(({ offset, size }) => Number.isInteger(offset) && Number.isInteger(size) && size >= 0)).toBe(true);
}

describe('the encoder manifest under generated files', () => {
  it('reads the shipped manifest with fields replaced, removed or added, or names what is wrong', () => {
    fuzz([mutatedJson(SHIPPED)], (document) => expectManifestOrClearError(JSON.stringify(document) ?? ''), { runs: 2000 });
  });

  it('refuses text that is not a manifest', () => {
    const shippedText = JSON.stringify(SHIPPED);
    const text = fc.oneof(
      fc.string({ maxLength: 100, unit: 'binary' }),
      fc.json({ maxDepth: 3 }),
      fc.nat({ max: shippedText.length }).map((end) => shippedText.slice(0, end)),
    );
    fuzz([text], expectManifestOrClearError, { runs: 1000 });
  });
});
