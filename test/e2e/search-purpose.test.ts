/**
 * Issue 37 item 2 on the dashboard, in a real headless Chromium against a real hub in this
 * process (HTTP on loopback, real database): a search without a purpose is refused (by the
 * form, and by the API when the form is bypassed), one with a purpose finds the read and is
 * audited with it, a purpose needing a case number asks for one, and an admin retires a
 * purpose on the audit page. axe at 1280 and 390 wide; screenshots to docs/screenshots/.
 */
import { join } from 'node:path';
import t from 'tap';
import { uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';
import { ADMIN_COLLECTORS_PATH, ADMIN_USERS_PATH, EVENTS_SEARCH_PATH, PURPOSES_PATH } from '../../hub/src/platform/http/paths.ts';

const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');

const PASSWORD = 'purpose page correct horse battery';

t.test('searches state a purpose, in a real browser', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'purpose' });
  const { url } = hub;
  const db = hub.deps.db;
  const site = await claimedSite(hub, 'Purpose site');
  await uploadPlates(site, ['PU12RPS']);
  // Two pages of results for PG*: 26 reads, 25 a page.
  await uploadPlates(
    site,
    Array.from({ length: 26 }, (_, i) => `PG${100 + i}XY`),
  );
  const admin = await enrolledUser(hub, 'admin@purpose.test', PASSWORD, 'admin');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/search', admin);

  const summary = () => page.textContent('#summary');

  await t.test('a search without a purpose is refused; with one it runs and is audited', async (t) => {
    await page.waitForSelector('#purpose option[value="stolen_vehicle"]', { state: 'attached' });
    await page.fill('#plate', 'PU12RPS');
    await page.fill('#reason', 'a note alone');
    await page.click('#search-form button[type="submit"]');
    t.equal(await page.evaluate(() => (document.getElementById('purpose') as HTMLSelectElement).validity.valueMissing), true, 'the form asks for a purpose');
    t.equal(await summary(), '', 'nothing searched');
    // Past the form (a bookmark, a script): the API refuses it too, and says why.
    const bypass = await page.request.get(`${url}${EVENTS_SEARCH_PATH}?plate=PU12RPS&reason=a%20note%20alone`);
    t.equal(bypass.status(), 400);
    t.match(await bypass.json(), { error: { code: 'bad_request', message: /^purpose: a purpose is required/ } });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(SCREENSHOTS, 'search-purpose-1280.png'), fullPage: true });

    await page.selectOption('#purpose', 'criminal_investigation');
    await page.click('#search-form button[type="submit"]');
    t.equal(
      await page.evaluate(() => (document.getElementById('case-number') as HTMLInputElement).validity.valueMissing),
      true,
      'this purpose asks for a case number',
    );
    t.equal(await summary(), '', 'still nothing searched');
    await page.fill('#case-number', 'CR-2026-0117');
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#results a:has-text("PU12RPS")');
    t.match(page.url(), /purpose=criminal_investigation&case_number=CR-2026-0117/, 'the purpose is in the bookmarkable query');
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation at 1280');
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(wide <= 390, `no wider than a 390 px phone (${wide} px)`);
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation at 390');
    await page.screenshot({ path: join(SCREENSHOTS, 'search-purpose-390.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.click('#results a:has-text("PU12RPS")');
    await page.waitForSelector('#detail', { state: 'visible' });
    t.match(page.url(), /purpose=criminal_investigation/, 'the detection page carries the purpose');
    const rows = await db.sql<{ action: string; detail: Record<string, unknown> }>(
      `SELECT action, detail FROM audit_log WHERE action IN ('search.detections', 'search.detection_view') ORDER BY id`,
    );
    t.match(rows, [
      { action: 'search.detections', detail: { purpose: 'criminal_investigation', case_number: 'CR-2026-0117', reason: 'a note alone' } },
      { action: 'search.detection_view', detail: { purpose: 'criminal_investigation', case_number: 'CR-2026-0117' } },
    ]);
    t.equal(rows.length, 2, 'the refused attempts read nothing');
  });

  await t.test('an admin retires a purpose on the audit page; the search form no longer offers it', async (t) => {
    await page.goto(`${url}/admin/audit`);
    await page.waitForSelector('#purposes tbody tr');
    await page.click('#purposes button[aria-label="Retire Stolen plate"]');
    await page.waitForSelector('#purposes button[aria-label="Bring back Stolen plate"]');
    await page.fill('#filter-purpose', 'criminal_investigation');
    await page.click('#audit-form button[type="submit"]');
    await page.waitForFunction(() => {
      const text = document.querySelector('#audit tbody')?.textContent ?? '';
      return text.includes('CR-2026-0117') && !text.includes('auth.');
    });
    t.notMatch(await page.textContent('#audit tbody'), /admin\.purpose/, 'the filter keeps lookups of that purpose only');
    t.same(await seriousViolations(page), [], 'the audit page passes axe');
    await page.goto(`${url}/search`);
    await page.waitForSelector('#purpose option[value="stolen_vehicle"]', { state: 'attached' });
    t.equal(await page.locator('#purpose option[value="stolen_plate"]').count(), 0, 'a retired purpose is not offered');
    t.same(problems.take(), [], 'no console error or failed request');
  });

  await t.test('the audit log: lookups and changes, page views on request, as wide as the window; a review flag opens on its one row', async (t) => {
    // A plate on no list looked up without a case number: the audit review flags that lookup.
    await page.goto(`${url}/search?plate=PU12RPS&purpose=stolen_vehicle`);
    await page.waitForSelector('#results a:has-text("PU12RPS")');
    // Page views: the admin pages' own reads, as the collectors and users pages make them.
    for (const path of [ADMIN_COLLECTORS_PATH, ADMIN_USERS_PATH, ADMIN_COLLECTORS_PATH]) t.equal((await page.request.get(`${url}${path}`)).status(), 200);
    const width = () => page.evaluate(() => document.documentElement.scrollWidth);

    await page.goto(`${url}/admin/audit`);
    await page.waitForSelector('#audit tbody tr');
    const shown = async () => page.$$eval('#audit tbody tr td:nth-child(2)', (tds) => tds.map((td) => td.textContent ?? ''));
    let actions = await shown();
    t.ok(actions.includes('search.detections') && actions.includes('admin.purpose.retire'), 'lookups and changes are shown');
    t.notOk(
      actions.some((a) => a === 'admin.collector.list' || a === 'admin.user.list' || a === 'admin.audit.read'),
      'page views are not, by default',
    );
    await page.check('#page-views');
    await page.click('#audit-form button[type="submit"]');
    await page.waitForFunction(() => document.querySelector('#audit tbody')?.textContent?.includes('admin.collector.list'));
    actions = await shown();
    t.ok(actions.includes('admin.user.list') && actions.includes('search.detections'), 'asked for, page views are listed among the rest');
    const wide = await width();
    t.ok(wide <= 1280, `the page is no wider than a 1280 px window, Details and all (${wide} px)`);
    t.same(await seriousViolations(page), [], 'the audit page passes axe');

    // The review reads up to now, exclusive; the test's clock has stood still since the lookups.
    hub.clock.advance(60_000);
    await page.goto(`${url}/admin/audit-review`);
    // The one lookup without a case number (the others named CR-2026-0117).
    const flag = page.locator('#flags tr[data-flag="plate_on_no_list"]');
    await flag.waitFor();
    t.equal(await flag.count(), 1, 'one flag: the plate on no list');
    const behind = await flag.locator('li[data-audit-id]').evaluateAll((lis) => lis.map((li) => li.getAttribute('data-audit-id')));
    t.equal(behind.length, 1, 'the flag names one audit row');
    await flag.locator('a:has-text("Open in the audit log")').click();
    await page.waitForURL(/\/admin\/audit\?ids=/);
    await page.waitForSelector('#audit tbody tr');
    const rows = await page.$$eval('#audit tbody tr', (trs) => trs.map((tr) => tr.querySelector('td:nth-child(2)')?.textContent ?? ''));
    t.same(rows, ['search.detections'], 'the audit log opens on exactly that row');
    t.match(await page.textContent('#linked'), /Showing the entry behind one audit-review flag\. Show the whole log/);
    t.same(problems.take(), [], 'no console error or failed request');
  });

  await t.test("the search speaks to people: what to fix, not the API's text", async (t) => {
    await page.goto(`${url}/search?plate=PU12RPS&purpose=stolen_vehicle`);
    await page.waitForSelector('#results a:has-text("PU12RPS")');
    t.equal(await page.isHidden('#pager'), true, 'one page of results: no pager');
    await page.fill('#plate', 'PG*');
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#pager', { state: 'visible' });
    t.match(await summary(), /^26 detections; page 1 of 2/);
    // The form emptied, then "Next page": the page says what is missing and asks the hub nothing.
    await page.selectOption('#purpose', '');
    await page.click('#next');
    t.equal(await page.textContent('#message'), 'Choose a purpose: every search is recorded with why it was made.');
    t.match(page.url(), /purpose=stolen_vehicle/, 'no search was run');
    t.same(problems.take(), [], 'no request failed');
    // A bookmark naming a purpose the hub does not have: the hub refuses, the page says it in words.
    await page.goto(`${url}/search?plate=PU12RPS&purpose=no_such_purpose`);
    await page.waitForSelector('#message:not(:empty)');
    const said = (await page.textContent('#message')) ?? '';
    t.equal(said, 'Choose a purpose from the list: every lookup is recorded with why it was made.');
    t.notMatch(said, /\/api\/|purpose:/, 'no route and no parameter name on the page');
    const refused = problems.take();
    t.match(refused, [/GET \/api\/v1\/events\/search 400/, /console: Failed to load resource.*400/], 'the one refusal');
    t.equal(refused.length, 2, 'and nothing else');
  });

  await t.test("location activity: the site is picked by name, not pasted as a collector's id", async (t) => {
    await page.goto(`${url}/investigations`);
    await page.waitForSelector('#purpose option[value="stolen_vehicle"]', { state: 'attached' });
    await page.selectOption('#kind', 'location-activity');
    t.same(await page.$$eval('#collector option', (options) => options.map((o) => o.textContent)), ['Choose a site', 'Purpose site'], 'a picker of the sites');
    await page.selectOption('#purpose', 'stolen_vehicle');
    await page.click('#investigation-form button[type="submit"]');
    t.equal(await page.textContent('#message'), 'Choose a site.', 'no site chosen: said, nothing asked');
    await page.selectOption('#collector', { label: 'Purpose site' });
    // The reads' day in the browser's time zone, which the page sends with the day.
    await page.fill('#day', await page.evaluate(() => new Date(Date.now() - 60_000).toLocaleDateString('en-CA')));
    await page.click('#investigation-form button[type="submit"]');
    await page.waitForSelector('#summary:has-text("detections")');
    t.equal(await page.textContent('#summary'), '27 detections, 27 plates.', "the site's day");
    t.same(problems.take(), [], 'no console error or failed request');
  });

  await t.test('what is typed while the purposes load stays typed (a slow hub wiped it once)', async (t) => {
    // The purposes answer held back, as on a loaded hub: the user types meanwhile.
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**${PURPOSES_PATH}`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${url}/search`);
    await page.fill('#plate', 'PU12RPS');
    await page.selectOption('#plate-match', 'one_edit');
    release();
    await page.waitForSelector('#purpose option[value="stolen_vehicle"]', { state: 'attached' });
    await page.unroute(`**${PURPOSES_PATH}`);
    t.equal(await page.inputValue('#plate'), 'PU12RPS', 'the plate typed');
    t.equal(await page.inputValue('#plate-match'), 'one_edit', 'the mode picked');
    await page.selectOption('#purpose', 'stolen_vehicle');
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#results a:has-text("PU12RPS")');
    t.match(page.url(), /plate=PU12RPS&plate_match=one_edit/, 'searched as typed');
    t.same(problems.take(), [], 'no console error or failed request');
  });
});
