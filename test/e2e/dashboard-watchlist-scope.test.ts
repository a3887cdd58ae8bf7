/**
 * A watchlist's scope on the dashboard (docs/watchlists.md "Scopes"), in a real headless
 * Chromium against a real hub in this process: an operator makes a list an allow-list for
 * Gate B, entering, Mon-Fri 22:00-06:00 Europe/Paris; the page says the scope in words as the
 * hub wrote it, keeps it after a reload, refuses an unknown zone with the hub's reason, and
 * clears it. axe at 1280 and 390 wide.
 */
import t from 'tap';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';

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
  await page.fill('#scope-places', gateB.collectorId);
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

  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation at 1280');
  await page.setViewportSize({ width: 390, height: 844 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  t.ok(wide <= 390, `no wider than a 390 px phone (${wide} px)`);
  t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation at 390');
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.reload();
  await page.click('#lists button:has-text("Residents")');
  await page.waitForSelector(`#scope-words:text-is("${words}")`);
  t.equal(await page.inputValue('#scope-zone'), 'Europe/Paris', 'the form shows the stored scope');
  t.equal(await page.inputValue('#scope-from'), '22:00');

  await page.fill('#scope-zone', 'Mars/Olympus');
  await page.click('#scope-form button[type="submit"]');
  await page.waitForSelector('#message:has-text("time zone")');
  t.equal(await page.textContent('#scope-words'), words, 'a refused scope changes nothing');
  problems.take();

  await page.fill('#scope-places', '');
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
