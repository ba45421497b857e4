// axe-core's WCAG 2 A/AA and best-practice rules run in the page under test, all of them, on the
// whole document. Its findings come back as one line each (rule, element, what to fix), so a failed
// test reads as a to-do list.
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** WCAG 2.0 and 2.1, levels A and AA, and Deque's best practices. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] as const;

/**
 * Runs axe on the page as it is now. Returns every violation and every colour-contrast check axe
 * could not decide (text over an image, a gradient or another element), one line per element; none
 * means the page passes.
 */
export async function axeFindings(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, so the page's content security policy does not apply.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const results = await page.evaluate(
    (tags) =>
      (window as unknown as { axe: typeof axe }).axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations', 'incomplete'] }),
    [...AXE_TAGS],
  );
  const undecidedContrast = results.incomplete.filter((result) => result.id === 'color-contrast');
  return [
    ...results.violations.map((result) => ({ result, verdict: 'violation' })),
    ...undecidedContrast.map((result) => ({ result, verdict: 'undecided' })),
  ].flatMap(({ result, verdict }) => result.nodes.map((node) => `${result.id} (${verdict}, ${result.help}) at ${node.target.join(' ')}: ${whatToFix(node)}`));
}

/** axe's summary of a failed element; an undecided one has none, only its checks' messages. */
function whatToFix(node: axe.NodeResult): string {
  const summary = node.failureSummary ?? [...node.any, ...node.all, ...node.none].map((check) => check.message).join('; ');
  return summary.replace(/\s+/g, ' ').trim();
}
