/**
 * Issue 37 item 1 on the dashboard, in a real headless Chromium against a real hub (HTTP and
 * the live channel on loopback, real database): an operator opens an alert on the live page,
 * sees the read's crop and scene beside the list entry with the differing character marked,
 * how it matched and the camera's other readings, confirms it; marks another one misread with
 * a note; both labels change on the page through the live channel, the API and the audit log
 * say who and when, and the reports page shows the misread rate of the camera. The pictures
 * are the simulators' drawn crop and scene, and every one decodes. Screenshots at 1280 and
 * 390 wide go to docs/screenshots/ (alert-verify-*). The hub runs in this process so the alert
 * worker and the clock are the test's; nothing waits on wall-clock time.
 */
import { join } from 'node:path';
import t from 'tap';
import type { Page } from 'playwright-core';
import { createAlertWorker } from '../../hub/src/alerts/worker.ts';
import { sampleDetection, uploadBatch } from '../../hub/src/ingest/uploads.test-helper.ts';
import { createWatchlistCache } from '../../hub/src/watchlists/cache.ts';
import { addEntry } from '../../hub/src/watchlists/entries.ts';
import { subscribe } from '../../hub/src/watchlists/subscriptions.ts';
import { createWatchlist } from '../../hub/src/watchlists/watchlists.ts';
import { plateCropJpeg, sceneJpeg } from '../../scripts/simulators/draw-plate.ts';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { broken, imagesOn } from '../browser/images.ts';
import { watchProblems } from '../browser/page-problems.ts';
import { claimedSite, enrolledUser, inProcessHub, signInAt } from './in-process-hub.ts';
import { alertPath, ALERTS_PATH } from '../../hub/src/platform/http/paths.ts';

const PASSWORD = 'verify page correct horse battery';
const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');

t.test('an operator confirms one alert and marks another misread', { timeout: 360_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const hub = await inProcessHub(t, { name: 'verify', live: true });
  const { url, deps, clock } = hub;
  const db = deps.db;
  const enrolled = await claimedSite(hub, 'Harbour road');
  await db.sql(`UPDATE collectors SET config = $2::jsonb WHERE id = $1`, [
    enrolled.collectorId,
    JSON.stringify({
      cameras: [
        { id: 'east', name: 'East lane' },
        { id: 'west', name: 'West lane' },
      ],
    }),
  ]);

  const user = await enrolledUser(hub, 'operator@verify.test', PASSWORD, 'operator');
  const actor = { userId: user.id, ip: null, userAgent: null };
  const ctx = { db, clock, log: deps.log };
  const list = await createWatchlist(ctx, actor, { name: 'Stolen vehicles', priority: 'critical', ocr_tolerant: true });
  await subscribe(ctx, actor, list.id);
  await addEntry(ctx, actor, list.id, { plate: 'BZ60KXA', notes: 'silver estate, reported 3 May' });
  const worker = createAlertWorker(ctx, createWatchlistCache(ctx));

  /** One camera read with the simulators' drawn pictures, through the real batch endpoint. */
  const upload = async (plate: string, camera: string, seed: number, candidates?: Array<{ text: string; confidence: number }>): Promise<void> => {
    await uploadBatch({ url }, enrolled.apiKey, [
      {
        detection: sampleDetection({
          camera: { id: camera, mac: '7cd8b328641b' },
          plate: { text: plate, confidence: 0.78, ...(candidates ? { candidates } : {}) },
          timestamp: new Date(clock.now().getTime() - 5_000).toISOString(),
        }),
        fullScene: sceneJpeg(plate, { seed }),
        plateCrop: plateCropJpeg(plate, { seed }),
      },
    ]);
    while ((await worker.runOnce()) > 0) {
      /* the worker's NOTIFY reaches the live channel */
    }
  };

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = watchProblems(page);
  const policyViolations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy/i.test(message.text())) policyViolations.push(message.text());
  });
  const check = async (tt: { same(a: unknown, b: unknown, m: string): void; ok(v: boolean, m: string): void }, name: string, on: Page): Promise<void> => {
    tt.same(await seriousViolations(on), [], `${name}: no serious or critical accessibility violation`);
    tt.same(broken(await imagesOn(on)), [], `${name}: every image decodes`);
    await on.screenshot({ path: join(SCREENSHOTS, `${name}-1280x800.png`), fullPage: true });
    await on.setViewportSize({ width: 390, height: 844 });
    const wide = await on.evaluate(() => document.documentElement.scrollWidth);
    tt.ok(wide <= 390, `${name}: no wider than a 390 px phone (${wide} px)`);
    await on.screenshot({ path: join(SCREENSHOTS, `${name}-390x844.png`), fullPage: true });
    await on.setViewportSize({ width: 1280, height: 800 });
  };
  const alertIdOf = async (plate: string): Promise<string> => {
    const res = await page.request.get(`${url}${ALERTS_PATH}`);
    const body = (await res.json()) as { data: Array<{ alert_id: string; plate_number: string }> };
    const found = body.data.find((a) => a.plate_number === plate);
    if (!found) throw new Error(`no alert for ${plate}`);
    return found.alert_id;
  };

  await t.test('the operator signs in on the live page', async (t) => {
    await signInAt(page, hub, '/live', user);
    await page.waitForFunction(() => document.getElementById('connection')?.dataset['state'] === 'live');
    t.pass('the live channel is open');
    // `.card.grid { display: grid }` once beat the hidden attribute: an empty "Verify alert" box with a dead button.
    t.equal(await page.isHidden('#verify'), true, 'no verification box until an alert is opened');
    t.equal(await page.isHidden('#verify-confirm'), true, 'and no "Confirmed" button');
    t.equal(await page.isHidden('#alert-banner'), true, 'no banner before an alert');
    const icon = await page.evaluate(async () => {
      const img = new Image();
      img.src = '/favicon.ico';
      await img.decode().catch(() => undefined);
      return img.naturalWidth;
    });
    t.equal(icon, 32, '/favicon.ico is an icon the browser decodes');
    t.same(problems.take(), [], 'no console error or failed request while signing in and opening the live page');
  });

  let good = '';
  let bad = '';
  await t.test('a live alert says unverified; the view shows the read beside the entry, and the operator confirms it', async (t) => {
    // 8Z60KXA for the listed BZ60KXA: an OCR-tolerant match; the camera's runner-up read is the listed plate.
    await upload('8Z60KXA', 'east', 3, [
      { text: 'BZ60KXA', confidence: 0.74 },
      { text: '8Z6OKXA', confidence: 0.41 },
    ]);
    good = await alertIdOf('8Z60KXA');
    const item = `#alert-${good}`;
    await page.waitForSelector(`${item} .verification[data-verification="unverified"]`);
    t.equal(await page.textContent(`${item} .verification`), 'unverified', 'labelled unverified in the list');
    const record = (await (await page.request.get(`${url}${alertPath(good)}`)).json()) as { detection_id: string };
    t.equal(await page.getAttribute(`${item} a.plate`, 'href'), `/detections/${record.detection_id}`, "the plate links to the detection's page");
    t.equal(await page.textContent(`${item} a.plate`), '8Z60KXA');
    t.match(await page.textContent('#banner-text'), /^UNVERIFIED: 8Z60KXA/, 'and in the banner');
    await page.click(`${item} button[data-verify]`);
    await page.waitForSelector('#verify:not([hidden])');
    t.equal(await page.textContent('#verify-read mark'), '8', 'the differing character is marked in the read');
    t.equal(await page.textContent('#verify-listed mark'), 'B', 'and in the plate as listed');
    t.match(await page.textContent('#verify-match'), /OCR-tolerant.*8 read where B is listed/);
    t.equal(await page.textContent('#verify-candidates'), 'BZ60KXA (74 %), 8Z6OKXA (41 %)', "the camera's other readings");
    t.equal(await page.textContent('#verify-notes'), 'silver estate, reported 3 May');
    t.match(await page.textContent('#verify-added'), /^operator@verify\.test · /, 'who added the entry, and when');
    t.equal(await page.textContent('#verify-confidence'), '78 %');
    t.equal(await page.getAttribute('#verify-crop', 'alt'), 'Plate crop of the read 8Z60KXA');
    await check(t, 'alert-verify', page);

    await page.fill('#verify-note', 'crop shows BZ60KXA, silver estate');
    await page.click('#verify-confirm');
    await page.waitForSelector(`${item} .verification[data-verification="confirmed"]`);
    t.match(await page.textContent('#message'), /Alert confirmed/);
    t.match(await page.textContent('#verify-state'), /^confirmed by operator@verify\.test, .*: crop shows BZ60KXA/, 'the view says who and when');
    t.equal(await page.isDisabled('#verify-misread'), true, 'a verdict is given once');
    const verified = (await (await page.request.get(`${url}${alertPath(good)}`)).json()) as { verification: Record<string, unknown> };
    t.match(verified.verification, { state: 'confirmed', by: user.id, at: clock.now().toISOString(), note: 'crop shows BZ60KXA, silver estate' });
  });

  await t.test('another alert is marked misread with a note', async (t) => {
    await page.click('#verify-close');
    await upload('BZ60KXA', 'west', 5);
    bad = await alertIdOf('BZ60KXA');
    const item = `#alert-${bad}`;
    await page.waitForSelector(`${item} .verification[data-verification="unverified"]`);
    await page.click(`${item} button[data-verify]`);
    await page.waitForFunction(() => document.getElementById('verify-read')?.textContent === 'BZ60KXA');
    t.equal(await page.locator('#verify-read mark').count(), 0, 'an exact read marks nothing');
    t.equal(await page.textContent('#verify-candidates'), 'none sent by this camera');
    await page.click('#verify-misread');
    t.match(await page.textContent('#message'), /needs a note/, 'a misread without a note is refused on the page');
    await page.fill('#verify-note', 'crop shows BZ68KXA: a different car');
    await page.click('#verify-misread');
    await page.waitForSelector(`${item} .verification[data-verification="misread"]`);
    t.match(await page.textContent('#message'), /marked misread/);
    await check(t, 'alert-misread', page);
    const [audit] = await db.sql<{ actions: string }>(
      `SELECT string_agg(action || ':' || target_id, ',' ORDER BY id) AS actions FROM audit_log WHERE action IN ('alert.confirm', 'alert.misread')`,
    );
    t.equal(audit?.actions, `alert.confirm:${good},alert.misread:${bad}`, 'both verdicts are in the audit log');
    t.same(problems.take(), [], 'no console error or failed request on the live page');
  });

  await t.test('the reports page shows the misread rate per camera and per list', async (t) => {
    await page.goto(`${url}/reports`);
    const rows = await page.$$eval('#misreads-cameras tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    t.same(rows, [
      ['Harbour road, West lane', '1', '0', '1', '100 %'],
      ['Harbour road, East lane', '1', '1', '0', '0 %'],
    ]);
    t.match(await page.textContent('#misreads-lists tbody'), /Stolen vehicles21150 %/);
    t.same(await seriousViolations(page), [], 'reports: no serious or critical accessibility violation');
    t.same(policyViolations, [], 'no Content-Security-Policy violation on any page');
  });
});
