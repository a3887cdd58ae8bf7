/**
 * Issue 50 item 7: at 390 px the stylesheet stacks a table's cells and hides its header row, so
 * a column table must name each value itself (`data-label`, shown before the value). Checked in
 * a real headless Chromium on the hub's legal-holds page (cells labelled by client/dom.ts
 * labelCells) and on the appliance's setup page (labels written by the server), against a real
 * hub (in this process, real database) and a real setup server on loopback.
 */
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { startSetup, postForm } from '../../appliance/src/setup/setup.test-helper.ts';
import { uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';
import { placeHold } from '../../hub/src/legal-holds/holds.ts';
import { launchChromium } from '../browser/chromium.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';

const NARROW = { width: 390, height: 844 };

interface CellView {
  label: string | null;
  before: string;
  text: string;
}

/** What each body cell of `selector` shows at this width, and whether its header row is in sight. */
async function cellsOf(page: Page, selector: string): Promise<{ headerVisible: boolean; headers: string[]; rows: CellView[][] }> {
  return page.evaluate((sel) => {
    const table = document.querySelector<HTMLTableElement>(sel);
    if (!table) throw new Error(`${sel} is missing`);
    const headRow = table.querySelector('thead tr') ?? table.querySelector('tr');
    const box = headRow?.getBoundingClientRect();
    const headerVisible = box !== undefined && box.right > 0 && box.bottom > 0 && box.left < window.innerWidth;
    const headers = [...(headRow?.querySelectorAll('th') ?? [])].map((th) => th.textContent?.trim() ?? '');
    const bodyRows = [...table.querySelectorAll('tr')].filter((tr) => tr.querySelector('td'));
    const rows = bodyRows.map((tr) =>
      [...tr.querySelectorAll('td')].map((td) => ({
        label: td.getAttribute('data-label'),
        before: getComputedStyle(td, '::before').content,
        text: td.textContent?.trim() ?? '',
      })),
    );
    return { headerVisible, headers, rows };
  }, selector);
}

function checkLabelled(t: Test, view: Awaited<ReturnType<typeof cellsOf>>, what: string): void {
  t.equal(view.headerVisible, false, `${what}: the header row is out of sight at 390 px`);
  t.ok(view.rows.length > 0, `${what}: a row to look at`);
  for (const row of view.rows)
    row.forEach((cell, i) => {
      const header = view.headers[i] ?? '';
      if (header === '') return; // an actions column: buttons say what they do
      t.equal(cell.label, header, `${what}: "${cell.text.slice(0, 30)}" is labelled with its column, ${header}`);
      t.not(cell.before, 'none', `${what}: and the label is drawn before it`);
    });
}

t.test('the legal-holds table labels each value at 390 px', { timeout: 180_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'holds-narrow' });
  const site = await claimedSite(hub, 'Holds site');
  const captured = new Date(hub.clock.now().getTime() - 60_000);
  await uploadPlates(site, ['H0LD42'], captured);
  const admin = await enrolledUser(hub, 'admin@holds.test', 'holds narrow correct horse', 'admin');
  await placeHold(
    { db: hub.deps.db, clock: hub.clock, log: hub.deps.log },
    { userId: admin.id, ip: null, userAgent: null },
    {
      target: { plate: 'H0LD42', start: new Date(captured.getTime() - 1000), end: new Date(captured.getTime() + 1000) },
      caseId: 'CASE-390',
      reason: 'narrow layout',
      holdUntil: null,
    },
  );
  const context = await browser.newContext({ viewport: NARROW });
  const page = await context.newPage();
  const problems = watchProblems(page);
  await signInAt(page, hub, '/admin/holds', admin);
  await page.waitForSelector('#holds tbody td:has-text("CASE-390")');
  checkLabelled(t, await cellsOf(page, '#holds'), 'holds');
  // A stacked table's caption spans the page (it shrank to a word a line, 7 lines for 6 words).
  const captionWidth = await page.evaluate(() => document.querySelector('#holds caption')?.getBoundingClientRect().width ?? 0);
  t.ok(captionWidth > NARROW.width / 2, `the caption spans the page (${Math.round(captionWidth)} px)`);
  t.same(problems.take(), [], 'no console error or failed request');
});

t.test("the appliance's setup page labels each camera value at 390 px", { timeout: 120_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const setup = await startSetup(t);
  const added = await postForm(setup.base, '/setup/cameras', {
    id: 'gate-a',
    vendor: 'vendor_a',
    mode: 'pull',
    host: '192.0.2.10',
    port: '80',
    username: 'admin',
    password: 'narrow-Pa55',
    timezone: 'UTC',
    channel: '1',
  });
  t.equal(added.status, 303, 'a camera is added');
  const context = await browser.newContext({ viewport: NARROW });
  const page = await context.newPage();
  await page.goto(`${setup.base}/`);
  await page.waitForSelector('td:has-text("gate-a")');
  const table = await page.evaluate(() => {
    const cell = [...document.querySelectorAll('td')].find((td) => td.textContent?.trim() === 'gate-a');
    const table = cell?.closest('table');
    if (table) table.id = 'cameras-under-test';
    return table !== null && table !== undefined;
  });
  t.ok(table, 'the cameras table');
  checkLabelled(t, await cellsOf(page, '#cameras-under-test'), 'appliance cameras');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  t.ok(width <= NARROW.width, `no horizontal overflow (${width} px)`);
});
