/**
 * Issue 50 item 9: every `DELETE /api/v1/*` route takes the deletion limit, 10 a minute per
 * user (docs/admin-api.md "Rate limits"), not the admin POST limit of 30. The routes are read
 * from the app's own routing table, so a DELETE route added later without a row here fails.
 */
import t from 'tap';
import { adminTestContext, send } from './admin.test-helper.ts';
import {
  ADMIN_CAMERA_ROUTE,
  ADMIN_KEY_ROUTE,
  ADMIN_SITE_GROUP_ROUTE,
  ADMIN_SITE_ROUTE,
  ADMIN_WEBHOOK_ROUTE,
  ADMIN_WEBHOOKS_PATH,
  adminCameraPath,
  adminKeyPath,
  adminSiteGroupPath,
  adminSitePath,
  adminWebhookPath,
  WATCHLIST_ENTRY_ROUTE,
  WATCHLIST_ROUTE,
  watchlistEntryPath,
  watchlistPartPath,
  watchlistPartRoute,
  watchlistPath,
} from '../platform/http/paths.ts';

const ctx = await adminTestContext(t);
const UNKNOWN = '00000000-0000-4000-8000-000000000009';

/** Each DELETE route, as mounted, and a path to it naming rows that do not exist (the limit counts before the verb looks). */
const DELETE_ROUTES: Record<string, string> = {
  [ADMIN_KEY_ROUTE]: adminKeyPath(UNKNOWN),
  [ADMIN_CAMERA_ROUTE]: adminCameraPath(UNKNOWN, UNKNOWN),
  [ADMIN_WEBHOOK_ROUTE]: adminWebhookPath(UNKNOWN),
  [ADMIN_SITE_ROUTE]: adminSitePath(UNKNOWN),
  [ADMIN_SITE_GROUP_ROUTE]: adminSiteGroupPath(UNKNOWN),
  [WATCHLIST_ROUTE]: watchlistPath(UNKNOWN),
  [WATCHLIST_ENTRY_ROUTE]: watchlistEntryPath(UNKNOWN, UNKNOWN),
  [watchlistPartRoute('subscription')]: watchlistPartPath(UNKNOWN, 'subscription'),
  [watchlistPartRoute('feed')]: watchlistPartPath(UNKNOWN, 'feed'),
};

t.test('the table names every DELETE route the hub mounts', async (t) => {
  const mounted = [...new Set(ctx.app.routes.filter((r) => r.method === 'DELETE').map((r) => r.path))].sort();
  t.same(mounted, Object.keys(DELETE_ROUTES).sort());
});

for (const [route, path] of Object.entries(DELETE_ROUTES)) {
  t.test(`DELETE ${route}: the 11th in a minute by one user is refused with 429`, async (t) => {
    const admin = await ctx.session('admin');
    const answers: string[] = [];
    for (let i = 1; i <= 10; i++) {
      const res = await send(ctx, admin, 'DELETE', path);
      answers.push(`${res.status} of ${res.headers.get('x-ratelimit-limit')}`);
    }
    t.same(new Set(answers), new Set(['404 of 10']), 'ten answered, each counted against the deletion limit of 10 (not the admin POST limit of 30)');
    const refused = await send(ctx, admin, 'DELETE', path);
    t.equal(refused.status, 429);
    const body = (await refused.json()) as { detail?: unknown; retry_after_seconds?: unknown };
    t.equal(body.detail, 'Rate limit exceeded');
    t.ok(typeof body.retry_after_seconds === 'number' && body.retry_after_seconds >= 1, 'retry_after_seconds');
    t.equal(refused.headers.get('retry-after'), String(body.retry_after_seconds), 'Retry-After says the same');
    t.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  });
}

t.test('one allowance for all deletions; a refused one removes nothing; POSTs and other users keep theirs', async (t) => {
  const admin = await ctx.session('admin');
  const other = await ctx.session('admin');
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) {
    const res = await send(ctx, admin, 'POST', ADMIN_WEBHOOKS_PATH, { name: `target ${i}`, url: `http://127.0.0.1:9/${i}`, events: ['alert'] });
    t.equal(res.status, 201, `webhook ${i} created`);
    ids.push(((await res.json()) as { webhook: { id: string } }).webhook.id);
  }
  const [last = '', ...rest] = ids.reverse();
  for (const id of rest.slice(0, 9)) t.equal((await send(ctx, admin, 'DELETE', adminWebhookPath(id))).status, 204);
  t.equal((await send(ctx, admin, 'DELETE', watchlistPath(UNKNOWN))).status, 404, 'the 10th deletion, on another route');
  t.equal((await send(ctx, admin, 'DELETE', adminWebhookPath(last))).status, 429, 'the 11th, back on webhooks');
  t.equal((await send(ctx, admin, 'GET', adminWebhookPath(last))).status, 200, 'the refused deletion removed nothing');
  t.equal(
    (await send(ctx, admin, 'POST', ADMIN_WEBHOOKS_PATH, { name: 'still', url: 'http://127.0.0.1:9/x', events: ['alert'] })).status,
    201,
    'POSTs are counted apart',
  );
  t.equal((await send(ctx, other, 'DELETE', adminWebhookPath(rest[9] ?? ''))).status, 204, 'another admin has their own allowance');
  ctx.clock.advance(60_000);
  t.equal((await send(ctx, admin, 'DELETE', adminWebhookPath(last))).status, 204, 'a minute later it goes through');
});
