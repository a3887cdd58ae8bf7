import t from 'tap';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { claimedCollector } from '../collectors/collectors.test-helper.ts';
import { commands } from '../db/schema/commands.ts';
import { certificateSha256 } from '../tls/fingerprint.ts';
import { GENERATED_CERT_FILE } from '../tls/material.ts';
import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';
import { cliWorld, type CliRun as Run } from './cli-world.test-helper.ts';

/**
 * `hub-certificate show|announce` as an admin runs them (in this process:
 * cli-world.test-helper.ts) over a real database, for a hub on a non-loopback host whose
 * generated certificate sits in its data folder (what a first start leaves there).
 */
const world = await cliWorld(t, 'hub-cert-cli', { env: { HUB_HOST: '0.0.0.0' } });
const { withHub } = world;
const cli = (...args: string[]) => world.cli(args);
await mkdir(world.dataDir, { recursive: true });
const cert = generateSelfSignedCertificate({ names: ['hub.example.test'], now: new Date() });
await writeFile(join(world.dataDir, GENERATED_CERT_FILE), cert.certPem);
const served = certificateSha256(cert.certPem);
const nextHex = 'fe'.repeat(32);
const next = nextHex.toUpperCase().match(/../g)?.join(':');

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
