/**
 * Issue 19: the hostile-input sweep over every route of the appliance's port 8080 (camera
 * pushes, setup page, diagnostics) as `appliance/src/main.ts` serves them: the same
 * createAppliance, with its guards and its real SQLite buffer and setup store, over real
 * HTTP on loopback. The routes come from the running app's own route table, so a route
 * added anywhere in the local server is swept the day it lands.
 * Reproduce a failure with SWEEP_SEED=<the printed seed>.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readEnvironment } from '../../appliance/src/config/load.ts';
import { createLog } from '../../appliance/src/log.ts';
import { createAppliance } from '../../appliance/src/runtime/appliance.ts';
import { fixedIdentity } from '../../appliance/src/vault/hardware-identity.ts';
import { routesOf, sweep, sweepSeed } from './sweep.ts';
import { READER_TYPES } from '@alpr/shared/adapters/types';

const seed = sweepSeed();
t.comment(`sweep seed ${seed} (SWEEP_SEED=${seed} reproduces this run)`);

const dataDir = await mkdtemp(join(tmpdir(), 'alpr-sweep-appliance-'));
t.teardown(() => rm(dataDir, { recursive: true, force: true }));
await writeFile(join(dataDir, 'appliance.toml'), '[setup]\nhost = "127.0.0.1"\nport = 0\n');
let nowMs = Date.now();
const appliance = createAppliance(readEnvironment({ ALPR_DATA_DIR: dataDir }), {
  identity: fixedIdentity('serial:SWEEP-1'),
  log: createLog('silent'),
  now: () => new Date(nowMs),
  diskSpace: async () => ({ totalBytes: 100 * 1024 ** 3, availableBytes: 80 * 1024 ** 3 }),
});
t.teardown(() => appliance.stop());
const base = (await appliance.start()).url;
const missing = (what: string): never => {
  throw new Error(`the appliance started without its ${what}`);
};
const app = appliance.httpApp() ?? missing('local app');
const buffer = appliance.buffer() ?? missing('buffer');

/** Buffer rows and every file in the data folder (configuration, vault), by content. */
async function fingerprint(): Promise<string> {
  const rows = ['detections', 'rejected'].map((table) => (buffer.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n).join(',');
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

t.test('the ingest route under each plate-reader adapter (docs/readers.md): the same battery per source', async (t) => {
  const ingest = routesOf(app).filter((r) => r.path.includes(':vendor'));
  t.ok(ingest.length >= 1, 'the ingest route is in the table');
  for (const vendor of READER_TYPES) {
    const result = await sweep(
      {
        base,
        routes: ingest,
        credentials: { valid: { origin: base }, params: { id: 'cam1', vendor } },
        fingerprint,
        healthPath: '/healthz',
      },
      seed,
    );
    t.comment(`${vendor}: ${result.attempts} requests; answers ${JSON.stringify(result.statuses)}`);
    t.same(result.failures, [], `${vendor}: every answer a clean 2xx/3xx/4xx`);
  }
});
