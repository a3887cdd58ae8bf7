import t from 'tap';
import { eq } from 'drizzle-orm';
import nacl from 'tweetnacl';
import { signedCommandSchema } from '@alpr/shared/protocol/collector';
import { openSealedBox } from '@alpr/shared/protocol/sealed-box';
import { verifyCommandSignature } from '@alpr/shared/protocol/signing';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { collectors } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { escrowStoredConfigSecrets } from './escrow-stored-secrets.ts';
import { heartbeat } from './heartbeat.ts';
import { updateConfig } from './update-config.ts';
import { claimedCollector, collectorTestContext, TEST_PUBLIC_URL } from './collectors.test-helper.ts';

/**
 * Secrets in a collector's configuration (docs/collectors.md "Secrets in the configuration"):
 * never in clear in the database or in the signed command, opened only by the device's key.
 */
const ctx = await collectorTestContext(t);
const beat = { uptime_seconds: 120, queue_depth: 0, cameras_online: 1, config_version: 1 };

const device = () => {
  const pair = nacl.box.keyPair();
  return { publicKey: Buffer.from(pair.publicKey).toString('base64'), secretKey: pair.secretKey };
};

const withSecrets = {
  heartbeat_interval_seconds: 30,
  mqtt: { url: 'mqtts://broker.lan:8883', username: 'gate', password: 'broker-pass-1' },
  cameras: [
    {
      id: 'cam-1',
      vendor: 'vendor_a',
      host: '192.0.2.7',
      username: 'admin',
      password: 'cam-pass-2',
      token_header: 'bearer',
      pushSecret: 'push-secret-0123456789',
    },
  ],
};
const CLEAR = ['broker-pass-1', 'cam-pass-2', 'push-secret-0123456789'];

const get = (tree: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string | number, unknown>)[key] : undefined), tree);

function opened(value: unknown, secretKey: Uint8Array): string {
  const sealed = get(value, '$sealed');
  if (typeof sealed !== 'string') throw new Error(`not a sealed marker: ${JSON.stringify(value)}`);
  const box = openSealedBox(sealed, secretKey);
  if (!box.ok) throw new Error(`does not open: ${box.problem}`);
  return Buffer.from(box.message).toString('utf8');
}

async function storedConfig(collectorId: string): Promise<Record<string, unknown>> {
  const [row] = await ctx.db.db.select({ config: collectors.config }).from(collectors).where(eq(collectors.id, collectorId));
  if (!row) throw new Error('no row');
  return row.config;
}

async function pushedConfig(collectorId: string): Promise<{ config: unknown; command: ReturnType<typeof signedCommandSchema.parse> }> {
  ctx.clock.advance(60_000);
  const answer = await heartbeat(ctx, collectorId, beat);
  const command = signedCommandSchema.parse(answer.pending_commands.at(-1));
  return { config: command.payload['config'], command };
}

t.test('an admin config with secrets: escrowed in the row, sealed to the device in the signed command', async (t) => {
  const box = device();
  const { collectorId, enrollment } = await claimedCollector(ctx, { publicKey: box.publicKey });
  await updateConfig(ctx, SYSTEM_ACTOR, collectorId, withSecrets);

  const stored = await storedConfig(collectorId);
  for (const secret of CLEAR) t.notMatch(JSON.stringify(stored), secret, `the row never holds ${secret}`);
  t.type(get(stored, 'mqtt', 'password', '$escrowed'), 'string');
  t.equal(get(stored, 'mqtt', 'username'), 'gate', 'a username is not a secret');
  t.equal(get(stored, 'cameras', 0, 'token_header'), 'bearer', 'a setting named like a token stays');
  t.equal(get(stored, 'heartbeat_interval_seconds'), 30);

  const { config, command } = await pushedConfig(collectorId);
  for (const secret of CLEAR) t.notMatch(JSON.stringify(command), secret, `the command never carries ${secret}`);
  t.ok(verifyCommandSignature(command, enrollment.hub_public_key), 'the command is signed with the sealed values in it');
  t.equal(opened(get(config, 'mqtt', 'password'), box.secretKey), 'broker-pass-1');
  t.equal(opened(get(config, 'cameras', 0, 'password'), box.secretKey), 'cam-pass-2');
  t.equal(opened(get(config, 'cameras', 0, 'pushSecret'), box.secretKey), 'push-secret-0123456789');
  t.notOk(openSealedBox(String(get(config, 'mqtt', 'password', '$sealed')), device().secretKey).ok, 'another device key opens nothing');
});

t.test('the configuration at claim is sealed to the claiming device; a device without a key gets it without secrets', async (t) => {
  const box = device();
  const claimed = await claimedCollector(ctx, { config: withSecrets, publicKey: box.publicKey });
  t.equal(opened(get(claimed.enrollment.config, 'mqtt', 'password'), box.secretKey), 'broker-pass-1');
  for (const secret of CLEAR) t.notMatch(JSON.stringify(await storedConfig(claimed.collectorId)), secret);

  const keyless = await claimedCollector(ctx, { config: withSecrets });
  t.equal(get(keyless.enrollment.config, 'mqtt', 'password'), undefined, 'no key to seal to: left out');
  t.equal(get(keyless.enrollment.config, 'mqtt', 'url'), 'mqtts://broker.lan:8883', 'the rest of the section stays');
  for (const secret of CLEAR) t.notMatch(JSON.stringify(keyless.enrollment), secret);
});

t.test('secrets an older hub stored in clear are sealed once at start, and still reach the device', async (t) => {
  const box = device();
  const { collectorId } = await claimedCollector(ctx, { publicKey: box.publicKey });
  await ctx.db.db.update(collectors).set({ config: withSecrets }).where(eq(collectors.id, collectorId));

  t.ok((await escrowStoredConfigSecrets(ctx)) >= 1, 'the row in clear is rewritten');
  for (const secret of CLEAR) t.notMatch(JSON.stringify(await storedConfig(collectorId)), secret);
  const after = await storedConfig(collectorId);
  t.equal(await escrowStoredConfigSecrets(ctx), 0, 'nothing left to seal: a second start changes nothing');
  t.same(await storedConfig(collectorId), after, 'and leaves the escrowed values as they were');

  await updateConfig(ctx, SYSTEM_ACTOR, collectorId, after);
  const { config } = await pushedConfig(collectorId);
  t.equal(opened(get(config, 'mqtt', 'password'), box.secretKey), 'broker-pass-1', 'a stored config sent back as is keeps its secret');
});

t.test('a hub whose secret changed refuses to push what it cannot open, naming the key', async (t) => {
  const box = device();
  const { collectorId } = await claimedCollector(ctx, { publicKey: box.publicKey });
  await updateConfig(ctx, SYSTEM_ACTOR, collectorId, withSecrets);
  const otherHub = { ...ctx, config: loadHubConfig({ HUB_PUBLIC_URL: TEST_PUBLIC_URL, HUB_SESSION_SECRET: 'f'.repeat(64) }) };
  const refused = await updateConfig(otherHub, SYSTEM_ACTOR, collectorId, await storedConfig(collectorId)).then(
    () => undefined,
    (error: unknown) => error,
  );
  t.ok(refused instanceof HubError, 'a HubError, so the route answers 4xx');
  t.equal(refused instanceof HubError ? refused.status : 0, 409);
  t.match(refused instanceof Error ? refused.message : '', /mqtt\.password does not open with this hub secret/);
  t.notMatch(JSON.stringify(await storedConfig(collectorId)), 'broker-pass-1');
});
