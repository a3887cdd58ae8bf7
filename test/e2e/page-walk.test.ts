/**
 * Every dashboard page as an admin and as an operator meet it, in a real headless Chromium
 * against a real hub in this process (HTTP on loopback, real database, the live channel on).
 * The pages walked are the ones each person's navigation offers, plus a detection's page, so
 * a new section joins the walk the day it is linked. At 1280 and 390 px each page must show:
 *   - no sideways scrolling (the document no wider than the window);
 *   - no console error, no uncaught exception, no failed or 4xx/5xx request (page-problems.ts);
 *   - every <img> decoded (a broken picture still "completes": naturalWidth tells);
 *   - no raw API text on screen: paths under /api/v1, "GET /…", error codes in JSON.
 * Screenshots of every page at both widths go to docs/screenshots/walk-*.png.
 */
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';
import { launchChromium } from '../browser/chromium.ts';
import { broken, imagesOn } from '../browser/images.ts';
import { watchProblems, type PageProblems } from '../browser/page-problems.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt, type EnrolledUser } from './in-process-hub.ts';

const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');
const PASSWORD = 'page walk correct horse battery';
const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/**
 * Text a program writes for a program. `pre` and `code` are left out: the audit log shows an
 * entry's details as data on purpose.
 */
const RAW_API_TEXT: ReadonlyArray<[string, RegExp]> = [
  ['an API path', /\/api\/v1\//],
  ['an HTTP request line', /\b(?:GET|POST|PUT|PATCH|DELETE) \/[a-z]/],
  ['a JSON error body', /"(?:error|code|message)"\s*:/],
  ['a JavaScript value', /\b(?:undefined|NaN|\[object Object\])\b/],
];

/** The text a person reads on the page, without preformatted data. */
function readableText(page: Page): Promise<string> {
  return page.evaluate(() => {
    const copy = document.body.cloneNode(true) as HTMLElement;
    for (const el of copy.querySelectorAll('pre, code, script, style, template, [hidden]')) el.remove();
    return copy.innerText;
  });
}

/** The section links the person's navigation offers. */
async function sectionsOf(page: Page): Promise<string[]> {
  return page.$$eval('nav[aria-label="Sections"] a', (links) => links.map((a) => new URL((a as HTMLAnchorElement).href).pathname));
}

/**
 * What a person does first on some pages, after which the page is checked again: a search
 * with a purpose, and a detection opened with one. (The search's "Next page" is hidden until
 * there is a next page; it once showed the API's own message on an empty form.)
 */
const ACTIONS: ReadonlyArray<{ on: RegExp; what: string; act(page: Page): Promise<void> }> = [
  {
    on: /^\/search$/,
    what: 'a search with a purpose',
    act: async (page) => {
      await page.fill('#plate', 'WA1KPG*');
      await page.selectOption('#purpose', 'stolen_vehicle');
      await page.click('#search-form button[type="submit"]');
      await page.waitForSelector('#results a:has-text("WA1KPG1")');
    },
  },
  {
    on: /^\/detections\//,
    what: 'opened with a purpose',
    act: async (page) => {
      await page.selectOption('#purpose', 'stolen_vehicle');
      await page.click('#reason-form button[type="submit"]');
      await page.waitForSelector('#detail', { state: 'visible' });
    },
  },
];

/** Waits for the page's own scripts to settle: no request in flight for a moment. */
async function settled(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle', { timeout: 30_000 }).catch(() => undefined);
}

t.test('every page, as an admin and as an operator, at 1280 and 390 px', { timeout: 400_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'walk', live: true });
  const site = await claimedSite(hub, 'Walk site');
  const [detectionId] = await uploadPlates(site, ['WA1KPG1', 'WA1KPG2', 'WA1KPG3']);
  const rows = await hub.deps.db.sql<{ id: string }>(`SELECT d.id::text AS id FROM detections d WHERE d.detection_id = $1`, [detectionId]);
  const detectionPath = `/detections/${rows[0]?.id ?? ''}`;
  const people: Array<{ role: 'admin' | 'operator'; user: EnrolledUser }> = [
    { role: 'admin', user: await enrolledUser(hub, 'admin@walk.test', PASSWORD, 'admin') },
    { role: 'operator', user: await enrolledUser(hub, 'op@walk.test', PASSWORD, 'operator') },
  ];

  for (const { role, user } of people) {
    await t.test(`as ${role}`, async (t) => {
      const context = await browser.newContext({ viewport: WIDTHS[0] });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const problems: PageProblems = watchProblems(page);
      await signInAt(page, hub, '/live', user);
      const sections = await sectionsOf(page);
      t.ok(sections.includes('/live') && sections.includes('/search'), `the navigation offers the sections (${sections.join(' ')})`);
      if (role === 'operator')
        t.notOk(
          sections.some((s) => s.startsWith('/admin/')),
          'an operator is offered no admin page',
        );
      else t.ok(sections.includes('/admin/audit'), 'an admin is offered the admin pages');
      problems.take();
      const inspect = async (on: Page, name: string, file: string): Promise<void> => {
        const width = on.viewportSize()?.width ?? 0;
        const wide = await on.evaluate(() => document.documentElement.scrollWidth);
        t.ok(wide <= width, `${name}: no wider than the window (${wide} px)`);
        t.same(broken(await imagesOn(on)), [], `${name}: every image decodes`);
        const text = await readableText(on);
        const raw = RAW_API_TEXT.filter(([, pattern]) => pattern.test(text)).map(([what, pattern]) => `${what}: ${text.match(pattern)?.[0] ?? ''}`);
        t.same(raw, [], `${name}: no raw API text on screen`);
        t.same(problems.take(), [], `${name}: no console error or failed request`);
        await on.screenshot({ path: join(SCREENSHOTS, file), fullPage: true });
      };

      for (const path of [...sections, detectionPath]) {
        for (const size of WIDTHS) {
          await page.setViewportSize(size);
          await page.goto(`${hub.url}${path}`);
          await settled(page);
          const page_ = path.startsWith('/detections/') ? 'detection' : path.slice(1).replace(/\//g, '-');
          await inspect(page, `${page_} at ${size.width}`, `walk-${role}-${page_}-${size.width}.png`);
          for (const [i, action] of ACTIONS.filter((a) => a.on.test(path)).entries()) {
            await action.act(page);
            await settled(page);
            await inspect(page, `${page_} at ${size.width}, ${action.what}`, `walk-${role}-${page_}-${i + 1}-${size.width}.png`);
          }
        }
      }

      if (role === 'operator') {
        // An admin page typed in by hand: a page that says no, not a JSON error.
        const answer = await page.goto(`${hub.url}/admin/users`);
        t.equal(answer?.status(), 403, 'an admin page refuses an operator');
        const text = await readableText(page);
        t.notMatch(text, /^\s*\{/, 'with a page for people, not a JSON body');
        problems.take();
      }
    });
  }
});
