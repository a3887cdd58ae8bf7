/**
 * The accessibility pass (axe-core) on a live page. axe is evaluated through the DevTools
 * protocol, which the page's Content-Security-Policy does not govern, so the page under test
 * keeps its real policy.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Violations rated serious or critical. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            opts: object,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }>;
        };
      }
    ).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

/**
 * The page as a desktop and as a phone sees it: axe at 1280 × 800 and at 390 × 844, and no
 * horizontal overflow at 390. The page is left at 1280 × 800.
 */
export async function checkAtBothWidths(
  t: { same(found: unknown, wanted: unknown, message: string): void; ok(value: unknown, message: string): void },
  page: Page,
): Promise<void> {
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation at 1280');
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  t.ok(wide <= 390, `no wider than a 390 px phone (${wide} px)`);
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation at 390');
  await page.setViewportSize({ width: 1280, height: 800 });
}
