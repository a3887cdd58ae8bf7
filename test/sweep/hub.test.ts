/**
 * Issue 19: the hostile-input sweep over every route the hub mounts (from Hono's route
 * table, so a new route is swept the day it lands), over real HTTP on loopback, with real
 * credentials so hostile bodies reach parsing and PostgreSQL. Reproduce a failure with
 * SWEEP_SEED=<the printed seed>.
 */
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { adminTestContext } from '../../hub/src/admin/admin.test-helper.ts';
import { claimedCollector } from '../../hub/src/collectors/collectors.test-helper.ts';
import { createCollector } from '../../hub/src/collectors/create-collector.ts';
import { addCamera } from '../../hub/src/collectors/cameras/change.ts';
import { SYSTEM_ACTOR } from '../../hub/src/platform/actor.ts';
import { routesOf, sweep, sweepSeed } from './sweep.ts';

const seed = sweepSeed();
t.comment(`sweep seed ${seed} (SWEEP_SEED=${seed} reproduces this run)`);

const ctx = await adminTestContext(t);
// The public account (/transparency) is off by default (404): on here, so its routes are swept answering.
ctx.deps.config.transparency = true;
let admin = await ctx.session('admin');
const collector = await claimedCollector(ctx.deps);
const pending = await createCollector(ctx.deps, SYSTEM_ACTOR, { siteName: 'Sweep pending' });
const keys = await ctx.deps.db.sql<{ id: string }>(`SELECT id::text AS id FROM api_keys LIMIT 1`);
// A central camera, so camera routes reach their verbs with a real id.
const camera = await addCamera(ctx.deps, SYSTEM_ACTOR, pending.collectorId, { name: 'Sweep gate', vendor: 'vendor_a', mode: 'push' });
const server = serve({ fetch: ctx.app.fetch, hostname: '127.0.0.1', port: 0 });
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// Tables a refusal may legitimately write: the audit trail, rate-limit hits, 2FA attempts, and
// the per-minute upload tally, which counts refused uploads on purpose (the error-rate health
// alert, docs/health.md).
const tables = (
  await ctx.deps.db.sql<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`,
  )
)
  .map((r) => r.name)
  .filter((name) => !/audit|rate_limit|attempt|collector_load_minutes/.test(name));
const fingerprint = async (): Promise<string> => {
  const [row] = await ctx.deps.db.sql<{ f: string }>(`SELECT concat_ws(',', ${tables.map((n) => `(SELECT count(*) FROM "${n}")`).join(', ')}) AS f`);
  return row?.f ?? '';
};

t.test('every hub route: no 5xx, no hang, error envelope, nothing half-written', async (t) => {
  const routes = routesOf(ctx.app);
  t.ok(routes.length >= 30, `${routes.length} routes from the route table`);
  const csrf = 'S'.repeat(43);
  const cookieHeader = () => `${admin.client.jar.header()}; csrf_token=${csrf}`;
  const credentials = {
    valid: { cookie: cookieHeader(), 'x-csrf-token': csrf, 'x-api-key': collector.apiKey },
    params: { id: pending.collectorId, keyId: keys[0]?.id ?? 'x', cameraId: camera.camera.id, vendor: 'vendor_b', code: 'no_such_purpose' },
  };
  const result = await sweep(
    {
      base,
      routes,
      credentials,
      fingerprint,
      healthPath: '/healthz',
      beforeEach: async (_request, index) => {
        // 2.1 s of hub time per request keeps every per-minute limit under its ceiling, so
        // hostile bodies are parsed instead of rate limited. A fresh admin every 100
        // requests: the second factor goes stale after 5 minutes, and the battery's wrong
        // codes lock the current admin's 2FA (as they should).
        ctx.clock.advance(2_100);
        // The tight per-minute limits (5 exports a minute) would still answer most of the
        // battery with 429 before its parameters are read: start every request afresh.
        await ctx.deps.db.sql('DELETE FROM rate_limit_hits');
        if (index % 100 === 99) {
          admin = await ctx.session('admin');
          credentials.valid.cookie = cookieHeader();
          return true;
        }
        return false;
      },
    },
    seed,
  );
  t.comment(`hub sweep: ${result.attempts} requests over ${routes.length} routes in ${result.durationMs} ms; answers ${JSON.stringify(result.statuses)}`);
  t.same(result.failures, [], 'every answer a clean 2xx/3xx/4xx');
});
