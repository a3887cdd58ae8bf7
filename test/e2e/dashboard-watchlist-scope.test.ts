/**
 * A watchlist's scope on the dashboard (docs/watchlists.md "Scopes"), in a real headless
 * Chromium against a real hub in this process: an operator makes a list an allow-list for
 * Gate B (ticked by name), entering, Mon-Fri 22:00-06:00 Europe/Paris; the page says the scope in words as the
 * hub wrote it, keeps it after a reload, refuses an unknown zone with the hub's reason, and
 * clears it. axe at 1280 and 390 wide.
 */
import t from 'tap';
import { checkAtBothWidths } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';
import { createSite, setCollectorSite } from '../../hub/src/sites/manage.ts';
import { setUserSites } from '../../hub/src/sites/user-sites.ts';

const PASSWORD = 'watchlist scope page correct horse battery';

t.test('watchlist scope on the dashboard', { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'watchlist-scope' });
  const gateB = await claimedSite(hub, 'Gate B');
  const operator = await enrolledUser(hub, 'op@scope-ui.test', PASSWORD, 'operator');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/watchlists', operator);
  const visible = (selector: string) => page.waitForSelector(selector, { state: 'visible', timeout: 30_000 });

  await page.fill('#list-name', 'Residents');
  await page.press('#list-name', 'Enter');
  await visible('#scope-section');
  t.equal(await page.textContent('#scope-words'), 'listed, anywhere, either direction, always', 'a new list: no scope, said in words');

  await page.selectOption('#scope-mode', 'allow_list');
  const gateBox = `input[name="scope-collector"][value="${gateB.collectorId}"]`;
  t.equal((await page.textContent(`label:has(${gateBox})`))?.trim(), 'Gate B', 'the collector is offered by name, not by id');
  await page.check(gateBox);
  await page.selectOption('#scope-direction', 'entering');
  for (const day of ['mon', 'tue', 'wed', 'thu', 'fri']) await page.check(`input[name="scope-day"][value="${day}"]`);
  await page.fill('#scope-from', '22:00');
  await page.fill('#scope-to', '06:00');
  await page.fill('#scope-zone', 'Europe/Paris');
  await page.click('#scope-form button[type="submit"]');
  await page.waitForSelector('#message:has-text("Scope of Residents saved")');
  const words = 'allow-list, Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris';
  await page.waitForSelector(`#scope-words:text-is("${words}")`);
  t.equal(await page.textContent('#scope-words'), words, 'the scope in words, names and all');
  t.same(problems.take(), [], 'no console error or failed request');

  await checkAtBothWidths(t, page);

  await page.reload();
  await page.click('#lists button:has-text("Residents")');
  await page.waitForSelector(`#scope-words:text-is("${words}")`);
  t.equal(await page.inputValue('#scope-zone'), 'Europe/Paris', 'the form shows the stored scope');
  t.equal(await page.inputValue('#scope-from'), '22:00');
  t.ok(await page.isChecked(gateBox), 'Gate B ticked');

  await page.fill('#scope-zone', 'Mars/Olympus');
  await page.click('#scope-form button[type="submit"]');
  await page.waitForSelector('#message:has-text("time zone")');
  t.equal(await page.textContent('#scope-words'), words, 'a refused scope changes nothing');
  problems.take();

  await page.uncheck(gateBox);
  for (const day of ['mon', 'tue', 'wed', 'thu', 'fri']) await page.uncheck(`input[name="scope-day"][value="${day}"]`);
  await page.fill('#scope-from', '');
  await page.fill('#scope-to', '');
  await page.fill('#scope-zone', '');
  await page.selectOption('#scope-direction', 'either');
  await page.selectOption('#scope-mode', 'listed');
  await page.click('#scope-form button[type="submit"]');
  await page.waitForSelector('#scope-words:text-is("listed, anywhere, either direction, always")');
  t.pass('cleared');
});

t.test("the scope form offers only the user's places, and a save keeps the places it does not show", { timeout: 300_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'watchlist-scope-sites' });
  const db = hub.deps.db;
  const estate = await createSite(db, { name: 'Estate A' });
  const shop = await createSite(db, { name: 'Shop B' });
  const gateA = await claimedSite(hub, 'Gate A');
  const gateB = await claimedSite(hub, 'Gate B');
  await setCollectorSite(db, gateA.collectorId, estate.id);
  await setCollectorSite(db, gateB.collectorId, shop.id);
  const operator = await enrolledUser(hub, 'shop-op@scope-ui.test', PASSWORD, 'operator');
  await setUserSites(db, operator.id, { all_sites: false, site_ids: [shop.id], group_ids: [] });

  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/watchlists', operator);
  await page.fill('#list-name', 'Shop night');
  await page.press('#list-name', 'Enter');
  await page.waitForSelector('#scope-section', { state: 'visible' });
  const offered = async (name: string): Promise<string[]> => page.$$eval(`input[name="${name}"]`, (els) => els.map((e) => (e as HTMLInputElement).value));
  t.same(await offered('scope-site'), [shop.id], 'sites: only Shop B, the operator’s own');
  t.same(await offered('scope-collector'), [gateB.collectorId], 'collectors: only Gate B');

  // An admin's scope names Estate A as well, which this operator cannot see.
  const [list] = await db.sql<{ id: string }>(`SELECT id::text AS id FROM watchlists WHERE name = 'Shop night'`);
  await db.sql(`UPDATE watchlists SET scope = $2::jsonb WHERE id = $1::uuid`, [list?.id, JSON.stringify({ sites: [estate.id, shop.id] })]);
  await page.reload();
  await page.click('#lists button:has-text("Shop night")');
  await page.waitForSelector(`input[name="scope-site"][value="${shop.id}"]:checked`);
  await page.selectOption('#scope-direction', 'entering');
  await page.click('#scope-form button[type="submit"]');
  await page.waitForSelector('#message:has-text("Scope of Shop night saved")');
  const [after] = await db.sql<{ scope: { sites?: string[]; direction?: string } }>(`SELECT scope FROM watchlists WHERE id = $1::uuid`, [list?.id]);
  t.same([...(after?.scope.sites ?? [])].sort(), [estate.id, shop.id].sort(), 'Estate A kept: a save never drops a place its author cannot see');
  t.equal(after?.scope.direction, 'entering', 'the change the operator made is saved');
  t.same(problems.take(), [], 'no console error or failed request');
});
