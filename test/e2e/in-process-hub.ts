/**
 * A hub inside the test's own process for browser tests that drive time with the injected
 * clock (docs/dashboard.md "Tests"): the real app over a test database on a loopback port,
 * optionally with the live channel, a claimed collector, and users enrolled with their second
 * factor. hub-under-test.ts starts a hub process instead, for tests that need main.ts whole.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Page } from 'playwright-core';
import { createHubApp } from '../../hub/src/app.ts';
import type { Role } from '../../hub/src/auth/middleware.ts';
import { startSetup, verifySetup } from '../../hub/src/auth/enrollment.ts';
import { createUser } from '../../hub/src/auth/registration.ts';
import { totpCode } from '../../hub/src/auth/totp.ts';
import { claim } from '../../hub/src/collectors/claim.ts';
import { movableClock, type MovableClock } from '../../hub/src/collectors/collectors.test-helper.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { createCollector } from '../../hub/src/collectors/create-collector.ts';
import { loadHubConfig } from '../../hub/src/platform/config/hub-config.ts';
import { testDatabase, type TestHandle } from '../../hub/src/db/database.test-helper.ts';
import type { HubDeps } from '../../hub/src/hub-deps.ts';
import { openImageStore } from '../../hub/src/images/image-store.ts';
import { createLoadMonitor } from '../../hub/src/ingest/load-monitor.ts';
import type { TestHub } from '../../hub/src/ingest/uploads.test-helper.ts';
import { createLiveBroker } from '../../hub/src/live/broker.ts';
import { attachLiveChannel } from '../../hub/src/live/upgrade.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { traced } from './hub-under-test.ts';

export interface InProcessHub {
  url: string;
  deps: HubDeps;
  clock: MovableClock;
  server: Server;
  imageDir: string;
}

export interface InProcessHubOptions {
  /** Names the temporary image folder (`alpr-<name>-ui-…`). */
  name: string;
  /** Extra hub settings, as environment variables. */
  env?: Record<string, string>;
  /**
   * The live channel on the same server. Its collector-status poll is off (an hour): a test
   * that moves the clock calls it itself.
   */
  live?: boolean;
}

export async function inProcessHub(t: TestHandle, options: InProcessHubOptions): Promise<InProcessHub> {
  const db = await testDatabase(t);
  const clock = movableClock(new Date());
  const imageDir = await mkdtemp(join(tmpdir(), `alpr-${options.name}-ui-`));
  const deps: HubDeps = {
    db,
    clock,
    log: createLog('silent'),
    config: { ...loadHubConfig({ HUB_LOG_LEVEL: 'silent', ...options.env }), imageDir },
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
  let closeLive = async (): Promise<void> => undefined;
  if (options.live) {
    const broker = createLiveBroker(deps, { maxConnectionsPerUser: 5, statusPollMs: 3_600_000 });
    await broker.start(db.listen.bind(db));
    const channel = attachLiveChannel(server, deps, broker);
    closeLive = async () => {
      channel.close();
      await broker.stop();
    };
  }
  t.teardown(
    traced('hub server', async () => {
      await closeLive();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, deps, clock, server, imageDir };
}

/** A claimed collector of the hub, shaped for the ingest test helpers (uploadPlates). */
export async function claimedSite(hub: InProcessHub, siteName: string): Promise<TestHub> {
  const created = await createCollector(hub.deps, SYSTEM_ACTOR, { siteName });
  const enrolled = await claim(hub.deps, { claim_code: created.claimCode, hardware_id: `hw-${randomUUID()}` }, '127.0.0.1');
  return { url: hub.url, deps: hub.deps, collectorId: enrolled.collector_id, apiKey: enrolled.api_key, imageDir: hub.imageDir, close: async () => undefined };
}

export interface EnrolledUser {
  id: string;
  email: string;
  password: string;
  /** The second factor's secret, for codes at the clock's time. */
  secret: string;
}

/** A user who has set up the second factor; the clock moves past the code used for it. */
export async function enrolledUser(hub: InProcessHub, email: string, password: string, role: Role): Promise<EnrolledUser> {
  const user = await createUser(hub.deps, { email, password, role });
  if (!user) throw new Error(`user ${email} exists`);
  const material = await startSetup(hub.deps, user);
  await verifySetup(hub.deps, user, await totpCode(material.secret, hub.clock.now()), { ip: null, userAgent: null });
  hub.clock.advance(30_000);
  return { id: user.id, email, password, secret: material.secret };
}

/** Opens `path`, signs in through the sign-in page with password and code, and waits to be back on `path`. */
export async function signInAt(page: Page, hub: InProcessHub, path: string, user: EnrolledUser): Promise<void> {
  await page.goto(`${hub.url}${path}`);
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await page.press('#password', 'Enter');
  await page.waitForSelector('#code-step', { state: 'visible' });
  await page.fill('#code', await totpCode(user.secret, hub.clock.now()));
  await page.press('#code', 'Enter');
  await page.waitForURL(new RegExp(`${path.replace(/[/.]/g, '\\$&')}$`));
}
