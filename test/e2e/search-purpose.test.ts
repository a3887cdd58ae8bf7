/**
 * Issue 37 item 2 on the dashboard, in a real headless Chromium against a real hub in this
 * process (HTTP on loopback, real database): a search without a purpose is refused (by the
 * form, and by the API when the form is bypassed), one with a purpose finds the read and is
 * audited with it, a purpose needing a case number asks for one, and an admin retires a
 * purpose on the audit page. axe at 1280 and 390 wide; screenshots to docs/screenshots/.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import t from 'tap';
import { createHubApp } from '../../hub/src/app.ts';
import { createUser } from '../../hub/src/auth/registration.ts';
import { startSetup, verifySetup } from '../../hub/src/auth/enrollment.ts';
import { totpCode } from '../../hub/src/auth/totp.ts';
import { uploadPlates } from '../../hub/src/alerts/alerts.test-helper.ts';
import { claim } from '../../hub/src/collectors/claim.ts';
import { SYSTEM_ACTOR } from '../../hub/src/collectors/context.ts';
import { createCollector } from '../../hub/src/collectors/create-collector.ts';
import { movableClock } from '../../hub/src/collectors/collectors.test-helper.ts';
import { loadHubConfig } from '../../hub/src/config.ts';
import { testDatabase } from '../../hub/src/db/database.test-helper.ts';
import type { HubDeps } from '../../hub/src/deps.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { createLoadMonitor } from '../../hub/src/ingest/load-monitor.ts';
import { createLog } from '../../hub/src/log.ts';
import { seriousViolations } from '../browser/accessibility.ts';
import { launchChromium } from '../browser/chromium.ts';
import { traced } from './hub-under-test.ts';

const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'docs', 'screenshots');

const PASSWORD = 'purpose page correct horse battery';

t.test('searches state a purpose, in a real browser', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const db = await testDatabase(t);
  const clock = movableClock(new Date());
  const imageDir = await mkdtemp(join(tmpdir(), 'alpr-purpose-ui-'));
  const deps: HubDeps = {
    db,
    clock,
    log: createLog('silent'),
    config: { ...loadHubConfig({ HUB_LOG_LEVEL: 'silent' }), imageDir },
    images: openImageStore(imageDir, { db }),
    load: createLoadMonitor(() => 0),
  };
  t.teardown(
    traced('image store', async () => {
      await deps.images.close();
      await rm(imageDir, { recursive: true, force: true });
    }),
  );
  const server = serve({ fetch: createHubApp(deps).fetch, hostname: '127.0.0.1', port: 0 }) as Server;
  await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
  t.teardown(
    traced('hub server', async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const created = await createCollector(deps, SYSTEM_ACTOR, { siteName: 'Purpose site' });
  const enrolled = await claim(deps, { claim_code: created.claimCode, hardware_id: `hw-${randomUUID()}` }, '127.0.0.1');
  const hub = { url, deps, collectorId: enrolled.collector_id, apiKey: enrolled.api_key, imageDir, close: async () => undefined };
  await uploadPlates(hub, ['PU12RPS']);

  const user = await createUser(deps, { email: 'admin@purpose.test', password: PASSWORD, role: 'admin' });
  if (!user) throw new Error('user exists');
  const material = await startSetup(deps, user);
  await verifySetup(deps, user, await totpCode(material.secret, clock.now()), { ip: null, userAgent: null });
  clock.advance(30_000);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/search`);
  await page.fill('#email', 'admin@purpose.test');
  await page.fill('#password', PASSWORD);
  await page.press('#password', 'Enter');
  await page.waitForSelector('#code-step', { state: 'visible' });
  await page.fill('#code', await totpCode(material.secret, clock.now()));
  await page.press('#code', 'Enter');
  await page.waitForURL(/\/search$/);

  const summary = () => page.textContent('#summary');

  await t.test('a search without a purpose is refused; with one it runs and is audited', async (t) => {
    await page.waitForSelector('#purpose option[value="stolen_vehicle"]', { state: 'attached' });
    await page.fill('#plate', 'PU12RPS');
    await page.fill('#reason', 'a note alone');
    await page.click('#search-form button[type="submit"]');
    t.equal(await page.evaluate(() => (document.getElementById('purpose') as HTMLSelectElement).validity.valueMissing), true, 'the form asks for a purpose');
    t.equal(await summary(), '', 'nothing searched');
    // Past the form (a bookmark, a script): the API refuses it too, and says why.
    const bypass = await page.request.get(`${url}/api/v1/events/search?plate=PU12RPS&reason=a%20note%20alone`);
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
  });
});
