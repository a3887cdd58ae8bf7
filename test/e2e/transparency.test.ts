/**
 * The public account (docs/transparency.md) in a real headless Chromium against a real hub
 * in this process (HTTP on loopback, real database, reads uploaded through the ingest path):
 * no sign-in, no navigation, this month's reads shown, no plate on the page, no serious axe
 * violation and no sideways scrolling at 1280 and 390 wide.
 */
import t from 'tap';
import { writeAudit } from '../../hub/src/platform/audit-writer.ts';
import { uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { DEMO_HUB_SETTINGS, transparencyUrl } from '../../scripts/demo/hub-settings.ts';
import { claimedSite, inProcessHub } from './in-process-hub.ts';

const PLATES = ['KX45MNP', 'HX27MTB', 'NY74EVW'];

// `npm start` runs its hub with DEMO_HUB_SETTINGS and prints transparencyUrl: a newcomer who
// opens it gets the page, not the JSON 404 of a hub left at the production default.
t.test('the demo hub serves the public account at the URL npm start prints', async (t) => {
  const demo = await inProcessHub(t, { name: 'transparency-demo', env: { ...DEMO_HUB_SETTINGS } });
  const page = await fetch(transparencyUrl(demo.url));
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(await page.text(), /<h1>Public account<\/h1>/);
  const json = await fetch(`${demo.url}/transparency.json`);
  t.equal(json.status, 200, 'and its JSON');

  const production = await inProcessHub(t, { name: 'transparency-default' });
  t.equal((await fetch(transparencyUrl(production.url))).status, 404, 'the production default stays off');
});

t.test('the public account in a real browser', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'transparency', env: { HUB_TRANSPARENCY: 'on' } });
  const { url, clock } = hub;
  const db = hub.deps.db;
  await uploadPlates(await claimedSite(hub, 'Account site'), PLATES);

  // A purpose with a long label (admins may write 100 characters), searched this month.
  const label = 'Locating a vehicle seen leaving the scene of a serious collision reported by the public';
  await db.sql(`INSERT INTO purposes (code, label, description, case_number_required) VALUES ('collision_scene', $1, '', true)`, [label]);
  await writeAudit(db, { at: clock.now(), action: 'search.detections', detail: { purpose: 'collision_scene', query: { plate: PLATES[0] } } });

  for (const width of [1280, 390]) {
    await t.test(`${width} wide`, async (t) => {
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      t.teardown(() => context.close());
      const page = await context.newPage();
      const res = await page.goto(`${url}/transparency`);
      t.equal(res?.status(), 200, 'no sign-in asked');
      t.equal(await page.locator('h1').textContent(), 'Public account');
      t.equal(await page.locator('nav').count(), 0, 'no dashboard navigation');
      const thisMonth = page.locator('main section').first();
      t.equal(await thisMonth.locator('dt:text-is("Plate reads") + dd').textContent(), '3', 'the three uploaded reads, this month');
      t.match(await thisMonth.textContent(), label, 'the search counted under its purpose');
      const text = (await page.textContent('body')) ?? '';
      for (const plate of PLATES) t.notOk(text.includes(plate), `no ${plate} on the page`);
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('main *')]
          .filter((e) => e.getBoundingClientRect().right > window.innerWidth)
          .map((e) => `${e.tagName} ${e.textContent?.slice(0, 40)}`),
      );
      t.same(wide, [], 'no sideways scrolling');
      t.same(await seriousViolations(page), [], 'no serious or critical accessibility violation');
    });
  }
});
