/**
 * Issue 19: the hostile-input sweep over every route of the appliance's port 8080 (camera
 * pushes, setup page, diagnostics), built by the same `createApplianceHttpApp` main.ts
 * uses, over real HTTP on loopback with the real SQLite buffer and setup store.
 * Reproduce a failure with SWEEP_SEED=<the printed seed>.
 */
import { serve } from '@hono/node-server';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openTestBuffer } from '../../appliance/src/buffer/testing.ts';
import { createIngestApp } from '../../appliance/src/cameras/vendor-a-push.ts';
import { diagnosticsRoutes } from '../../appliance/src/diagnostics/routes.ts';
import { createLanDiscovery } from '../../appliance/src/discovery/lan-discovery.ts';
import { createApplianceHttpApp } from '../../appliance/src/http/app.ts';
import { fileCameraStore } from '../../appliance/src/setup/camera-store.ts';
import { setupRoutes } from '../../appliance/src/setup/routes.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { sinkFor } from '../../appliance/src/wiring/buffer-ports.ts';
import { routesOf, sweep, sweepSeed } from './sweep.ts';

const seed = sweepSeed();
t.comment(`sweep seed ${seed} (SWEEP_SEED=${seed} reproduces this run)`);

const dataDir = await mkdtemp(join(tmpdir(), 'alpr-sweep-appliance-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));
const buffer = openTestBuffer((fn) => t.teardown(fn), { file: join(dataDir, 'buffer.sqlite') });
let nowMs = Date.parse('2026-03-01T09:00:00.000Z');
const clock = { now: () => new Date(nowMs) };
const quiet = () => undefined;
const log = { debug: quiet, info: quiet, warn: quiet, error: quiet };
const identity = fixedIdentity('serial:SWEEP-1');
const localConfigFile = join(dataDir, 'appliance.toml');

const app = createApplianceHttpApp(log, [
  createIngestApp({ cameras: () => [], sink: sinkFor(buffer, quiet), log, clock: { now: () => nowMs } }),
  setupRoutes({
    clock,
    log,
    identity,
    dataDir,
    centralConfigFile: join(dataDir, 'central-config.json'),
    edgeVersion: '0.1.0-sweep',
    cameras: fileCameraStore({ dataDir, localConfigFile, identity, now: clock.now }),
    state: () => 'unclaimed',
    onClaimed: quiet,
    discovery: createLanDiscovery({ now: () => nowMs, interfaces: () => ['127.0.0.1'], windowMs: 50 }),
  }),
  diagnosticsRoutes({ buffer, hubUrl: () => undefined, apiKey: () => undefined, uplink: () => undefined, cameras: () => [], now: clock.now }),
]);
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Buffer rows and every file in the data folder (configuration, vault), by content. */
async function fingerprint(): Promise<string> {
  const rows = ['detections', 'rejected']
    .map((table) => (buffer.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n)
    .join(',');
  const hash = createHash('sha256');
  for (const name of (await readdir(dataDir)).sort()) {
    if (name.startsWith('buffer.sqlite')) continue;
    hash.update(name);
    hash.update(await readFile(join(dataDir, name)).catch(() => Buffer.from('(dir)')));
  }
  return `${rows}:${hash.digest('hex').slice(0, 16)}`;
}

t.test('every appliance route: no 5xx, no hang, error envelope, nothing half-written', async (t) => {
  const routes = routesOf(app);
  t.ok(routes.length >= 8, `${routes.length} routes from the route table`);
  const result = await sweep(
    {
      base,
      routes,
      credentials: { valid: { origin: base }, params: { id: 'cam1', vendor: 'vendor_b' } },
      fingerprint,
      healthPath: '/healthz',
      beforeEach: async () => {
        // The setup page limits claim attempts per minute: its clock moves, so every
        // hostile claim body is parsed instead of rate limited.
        nowMs += 10_000;
        return false;
      },
    },
    seed,
  );
  t.comment(`appliance sweep: ${result.attempts} requests over ${routes.length} routes in ${result.durationMs} ms; answers ${JSON.stringify(result.statuses)}`);
  t.same(result.failures, [], 'every answer a clean 2xx/3xx/4xx');
});
