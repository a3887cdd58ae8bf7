import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { eq } from 'drizzle-orm';
import { systemClock } from '../platform/clock.ts';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import type { CollectorContext } from '../collectors/context.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { openDatabase } from '../db/client.ts';
import { commands } from '../db/schema/commands.ts';
import { createLog } from '../platform/log.ts';
import { certificateSha256 } from '../tls/fingerprint.ts';
import { GENERATED_CERT_FILE } from '../tls/material.ts';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';
import { cliDatabaseEnv } from './cli-database.test-helper.ts';

/**
 * `hub-certificate show|announce` as an admin runs them: the CLI as a child process over a
 * real database, for a hub on a non-loopback host whose generated certificate sits in its
 * data folder (what a first start leaves there).
 */
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const work = await mkdtemp(join(tmpdir(), 'alpr-hub-cert-cli-'));
t.teardown(() => rm(work, { recursive: true, force: true }));
const dataDir = join(work, 'hub');
await mkdir(dataDir, { recursive: true });
const cert = generateSelfSignedCertificate({ names: ['hub.example.test'], now: new Date() });
await writeFile(join(dataDir, GENERATED_CERT_FILE), cert.certPem);
const served = certificateSha256(cert.certPem);
const nextHex = 'fe'.repeat(32);
const next = nextHex.toUpperCase().match(/../g)?.join(':');

const env: Record<string, string> = {
  PATH: process.env['PATH'] ?? '',
  HUB_HOST: '0.0.0.0',
  HUB_PUBLIC_URL: 'https://hub.example.test',
  HUB_DATA_DIR: dataDir,
  ...(await cliDatabaseEnv(t, process.env, work)),
};
const config = loadHubConfig(env);

async function withHub<T>(run: (ctx: CollectorContext) => Promise<T>): Promise<T> {
  const db = await openDatabase({
    ...(config.databaseUrl ? { url: config.databaseUrl } : { dataDir: config.pgliteDir }),
    log: createLog('silent'),
    maxConnections: 1,
  });
  try {
    return await run({ db, clock: systemClock, log: createLog('silent'), config });
  } finally {
    await db.close();
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'hub/src/cli/main.ts', ...args], { cwd: repoRoot, env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error && typeof error.code === 'number' ? error.code : error ? -1 : 0, stdout, stderr });
    });
  });
}
const json = (run: Run): Record<string, unknown> => JSON.parse(run.stdout) as Record<string, unknown>;

t.test('show, claim codes and announce from the command line', async (t) => {
  const shown = await cli('hub-certificate', 'show', '--json');
  t.equal(shown.code, 0, shown.stderr);
  t.match(json(shown), { sha256: served, serves_tls: true, transport: 'https', next_sha256: null });

  const created = await cli('collector', 'create', '--site-name', 'Gate', '--json');
  t.equal(created.code, 0, created.stderr);
  t.match(json(created), { claim_code: String, hub_certificate_sha256: served }, 'the fingerprint beside the claim code');

  const collectorId = (await withHub((ctx) => claimedCollector(ctx))).collectorId;
  const announced = await cli('hub-certificate', 'announce', nextHex, '--json');
  t.equal(announced.code, 0, announced.stderr);
  t.match(json(announced), { sha256: next, queued: 1 });
  const rows = await withHub((ctx) => ctx.db.db.select().from(commands).where(eq(commands.collectorId, collectorId)));
  t.same(
    rows.filter((r) => r.type === 'trust_hub_certificate').map((r) => [r.payload, r.signature !== null]),
    [[{ sha256: next }, true]],
    'one signed command for the claimed collector, none for the pending one',
  );
  t.match(json(await cli('hub-certificate', 'show', '--json')), { sha256: served, next_sha256: next });
});

t.test('refusals: usage mistakes exit 2, the served certificate exits 1; nothing queued', async (t) => {
  const before = await withHub(async (ctx) => (await ctx.db.db.select().from(commands)).length);
  for (const args of [
    ['hub-certificate'],
    ['hub-certificate', 'announce'],
    ['hub-certificate', 'announce', 'not-a-fingerprint'],
    ['hub-certificate', 'rotate'],
  ]) {
    const run = await cli(...args);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, /usage:/);
  }
  const same = await cli('hub-certificate', 'announce', served);
  t.equal(same.code, 1);
  t.match(same.stderr, /error \(conflict\): .* serves now/);
  t.equal(await withHub(async (ctx) => (await ctx.db.db.select().from(commands)).length), before);
});
