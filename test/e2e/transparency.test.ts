/**
 * The public account (docs/transparency.md) in a real headless Chromium against a real hub
 * in this process (HTTP on loopback, real database, reads uploaded through the ingest path):
 * no sign-in, no navigation, this month's reads shown, no plate on the page, no serious axe
 * violation and no sideways scrolling at 1280 and 390 wide.
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
import { writeAudit } from '../../hub/src/audit/write.ts';
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

const PLATES = ['KX45MNP', 'HX27MTB', 'NY74EVW'];

t.test('the public account in a real browser', { timeout: 240_000 }, async (t) => {
  const browser = await launchChromium(t);
  if (typeof browser === 'string') {
    t.comment(`skipped: ${browser}`);
    return;
  }
  const db = await testDatabase(t);
  const clock = movableClock(new Date());
  const imageDir = await mkdtemp(join(tmpdir(), 'alpr-transparency-ui-'));
  const deps: HubDeps = {
    db,
    clock,
    log: createLog('silent'),
    config: { ...loadHubConfig({ HUB_LOG_LEVEL: 'silent', HUB_TRANSPARENCY: 'on' }), imageDir },
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
  const created = await createCollector(deps, SYSTEM_ACTOR, { siteName: 'Account site' });
  const enrolled = await claim(deps, { claim_code: created.claimCode, hardware_id: `hw-${randomUUID()}` }, '127.0.0.1');
  await uploadPlates({ url, deps, collectorId: enrolled.collector_id, apiKey: enrolled.api_key, imageDir, close: async () => undefined }, PLATES);

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
