/**
 * Issue 38 on the dashboard, in a real headless Chromium against a real hub in this process
 * (HTTP on loopback, real database): the search page's "One misread away" mode lists the
 * plates one edit from the query, marks the character each differs at (a gap for a missing
 * one), says how each matched, leaves out a transposed decoy, and passes axe.
 */
import t from 'tap';
import { uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';

const PASSWORD = 'one edit page correct horse battery';

t.test('one-edit search in a real browser', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'one-edit' });
  await uploadPlates(await claimedSite(hub, 'One edit site'), ['KX45MNP', 'KX45MNR', 'KX4MNP', 'XK45MNP']);
  const admin = await enrolledUser(hub, 'admin@one-edit.test', PASSWORD, 'admin');

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await signInAt(page, hub, '/search', admin);

  await t.test('the mode is offered, and its results mark the differing character', async (t) => {
    await page.fill('#plate', 'KX45MNP');
    await page.selectOption('#plate-match', 'one_edit');
    await page.selectOption('#purpose', 'stolen_vehicle');
    await page.fill('#reason', 'case UI-38');
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#results a:has-text("KX45MNR")');
    t.match(page.url(), /plate_match=one_edit/, 'the mode is in the bookmarkable query');
    const rows = await page.$$eval('#results tbody tr td:nth-child(2)', (cells) =>
      cells.map((c) => ({
        text: c.textContent ?? '',
        marked: [...c.querySelectorAll('mark')].map((m) => ({ text: m.textContent, gap: m.classList.contains('gap') })),
      })),
    );
    t.equal(rows.length, 3, 'the plate, a substitution and a deletion; not the transposition');
    t.notOk(
      rows.some((r) => r.text.startsWith('XK45MNP')),
      'the transposed decoy is left out',
    );
    t.match(rows[0], { text: /^KX45MNP \(exact\)/, marked: [] }, 'the plate itself first, nothing marked');
    const substituted = rows.find((r) => r.text.startsWith('KX45MNR'));
    t.same(substituted?.marked, [{ text: 'R', gap: false }], 'the R read for P is marked');
    t.match(substituted?.text, /\(R for P\)/, 'the difference in words, over the plates as read');
    const dropped = rows.find((r) => r.text.includes('KX4') && r.text.includes('missing'));
    t.same(dropped?.marked, [{ text: '_', gap: true }], 'the missing 5 is marked as a gap');
    t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation');
  });

  await t.test('a reload keeps the mode', async (t) => {
    await page.reload();
    await page.waitForSelector('#results a:has-text("KX45MNR")');
    t.equal(await page.inputValue('#plate-match'), 'one_edit');
  });
});
