/**
 * Sites on the dashboard (docs/sites.md), in a real headless Chromium against a real hub in
 * this process: an admin adds two sites and a group, moves a collector to a site, gives an
 * operator one site with the picker on the users page; the operator's search page then lists
 * only that site's collector. axe at 1280 and 390 wide on both pages.
 */
import t, { type Test } from 'tap';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { siteScopeOf } from '../../hub/src/sites/scope.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';

const PASSWORD = 'sites page correct horse battery staple';

t.test('sites and the sites picker on the dashboard', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'sites-ui' });
  const north = await claimedSite(hub, 'North gate');
  await claimedSite(hub, 'South gate');
  const admin = await enrolledUser(hub, 'admin@sites-ui.test', PASSWORD, 'admin');
  const operator = await enrolledUser(hub, 'operator@sites-ui.test', PASSWORD, 'operator');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/admin/sites', admin);
  await page.waitForSelector('#sites tr[data-site="Default site"]');

  async function axeAtBothWidths(t: Test, what: string): Promise<void> {
    t.same(await seriousViolations(page), [], `${what}: no serious or critical accessibility violation at 1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    t.ok(wide <= 390, `${what}: no wider than a 390 px phone (${wide} px)`);
    t.same(await seriousViolations(page), [], `${what}: no serious or critical accessibility violation at 390`);
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  await t.test('an admin adds sites and a group, and moves a collector', async (t) => {
    for (const [name, zone] of [
      ['Estate A', 'Europe/Paris'],
      ['Shop B', ''],
    ] as const) {
      await page.fill('#site-name', name);
      await page.fill('#site-zone', zone);
      await page.click('#create-site button[type="submit"]');
      await page.waitForSelector(`#sites tr[data-site="${name}"]`);
    }
    t.match(await page.textContent('#sites tr[data-site="Estate A"]'), /Europe\/Paris/);
    // A taken name is refused with the hub's words.
    await page.fill('#site-name', 'estate a');
    await page.click('#create-site button[type="submit"]');
    await page.waitForSelector('#message:has-text("already exists")');
    const seen = problems.take();
    t.ok(seen.length > 0 && seen.every((p) => p.includes('409')), `the one refusal (409), and nothing else went wrong: ${JSON.stringify(seen)}`);

    await page.fill('#group-name', 'Shops');
    await page.check('#group-sites label:has-text("Shop B") input');
    await page.click('#create-group button[type="submit"]');
    await page.waitForSelector('#groups tr[data-group="Shops"]:has-text("Shop B")');

    await page.selectOption('#sites tr[data-site="Estate A"] select', { label: 'North gate' });
    // The row's own picker lists "North gate" already, so the row's text cannot say the move is
    // done: the message does, once the answer is back.
    await page.waitForSelector('#message:has-text("North gate now belongs to Estate A")');
    t.match(await page.textContent('#sites tr[data-site="Estate A"]'), /North gate/);
    await axeAtBothWidths(t, 'the sites page');
  });

  await t.test('the picker on the users page gives the operator one site', async (t) => {
    await page.goto(`${hub.url}/admin/users`);
    await page.click(`button[aria-label="Sites: ${operator.email}"]`);
    await page.waitForSelector('#user-sites:not([hidden])');
    t.ok(await page.isChecked('#sites-all'), 'every user sees every site until given a set');
    t.ok(await page.$eval('#sites-pick', (f) => (f as HTMLFieldSetElement).disabled), 'the list means nothing while "All sites" is ticked');
    await page.uncheck('#sites-all');
    await page.check('#sites-pick label:has-text("Estate A") input');
    await page.click('#user-sites button[type="submit"]');
    await page.waitForSelector('#message:has-text("sees 1 site")');
    const scope = await siteScopeOf(hub.deps.db, { id: operator.id, role: 'operator' });
    t.same(scope.all ? 'all' : scope.collectorIds, [north.collectorId], "the operator's scope is now Estate A's collector");
    t.equal(await page.isVisible(`button[aria-label="Sites: ${admin.email}"]`), false, 'no picker for admins: they see every site');
    await axeAtBothWidths(t, 'the users page with the picker open');
    t.same(problems.take(), [], 'no console error or failed request');
  });

  await t.test("the operator's search page lists only their site's collector", async (t) => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const op = await other.newPage();
    await signInAt(op, hub, '/search', operator);
    const html = await op.content();
    t.match(html, /North gate/);
    t.notMatch(html, /South gate/, 'the other site is not named');
    await other.close();
  });
});
