/**
 * Issue 38 on the dashboard, in a real headless Chromium against a real hub in this process
 * (HTTP on loopback, real database): the search page's "One misread away" mode lists the
 * plates one edit from the query, marks the character each differs at (a gap for a missing
 * one), says how each matched, leaves out a transposed decoy, and passes axe.
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

const PASSWORD = 'one edit page correct horse battery';

t.test('one-edit search in a real browser', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const db = await testDatabase(t);
  const clock = movableClock(new Date());
  const imageDir = await mkdtemp(join(tmpdir(), 'alpr-one-edit-ui-'));
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
  const created = await createCollector(deps, SYSTEM_ACTOR, { siteName: 'One edit site' });
  const enrolled = await claim(deps, { claim_code: created.claimCode, hardware_id: `hw-${randomUUID()}` }, '127.0.0.1');
  const hub = { url, deps, collectorId: enrolled.collector_id, apiKey: enrolled.api_key, imageDir, close: async () => undefined };
  await uploadPlates(hub, ['KX45MNP', 'KX45MNR', 'KX4MNP', 'XK45MNP']);

  const user = await createUser(deps, { email: 'admin@one-edit.test', password: PASSWORD, role: 'admin' });
  if (!user) throw new Error('user exists');
  const material = await startSetup(deps, user);
  await verifySetup(deps, user, await totpCode(material.secret, clock.now()), { ip: null, userAgent: null });
  clock.advance(30_000);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${url}/search`);
  await page.fill('#email', 'admin@one-edit.test');
  await page.fill('#password', PASSWORD);
  await page.press('#password', 'Enter');
  await page.waitForSelector('#code-step', { state: 'visible' });
  await page.fill('#code', await totpCode(material.secret, clock.now()));
  await page.press('#code', 'Enter');
  await page.waitForURL(/\/search$/);

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
    t.match(substituted?.text, /one character differs/);
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
