/**
 * Webhook signing secrets at rest (docs/webhooks.md "Secrets at rest") on either database:
 * the table holds a sealed box, never the secret; deliveries still verify with the secret
 * shown at creation; a row an older hub stored in clear is sealed when the worker starts and
 * still signs; a hub secret that no longer opens the box fails that target's deliveries with
 * the reason on the target, while other targets go on and the worker keeps running.
 */
import t, { type Test } from 'tap';
import { createLog } from '../platform/log.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { startTestHub } from '../ingest/uploads.test-helper.ts';
import { movableClock } from '../collectors/collectors.test-helper.ts';
import { authKeys } from '../platform/secrets/hub-secret.ts';
import { sealSecret } from '../platform/secrets/secret-box.ts';
import { enqueueTestEvent } from './enqueue.ts';
import { WEBHOOK_RETRY_DELAYS_MS } from './queue.ts';
import { openWebhookSecret, SEALED_SECRET_UNREADABLE, sealPlainSecrets } from './secret-store.ts';
import { newSecret } from './sign.ts';
import { createTarget, getTarget, presentTarget, rotateSecret } from './targets.ts';
import { createWebhookWorker } from './worker.ts';
import { startReceiver } from './webhooks.test-helper.ts';

const db = await testDatabase(t);
const hub = await startTestHub({ db });
t.teardown(() => hub.close());
const clock = movableClock(new Date());
const ctx = { db, clock, log: createLog('silent'), config: hub.deps.config };
const receiver = await startReceiver();
t.teardown(() => receiver.close());

type StoredRow = { secret: string | null; secret_ciphertext: Uint8Array | null; secret_salt: Uint8Array | null; secret_prefix: string; whole: string };
async function stored(id: string): Promise<StoredRow> {
  const [row] = await db.sql<StoredRow>(
    `SELECT secret, secret_ciphertext, secret_salt, secret_prefix, row_to_json(t)::text AS whole FROM webhook_targets t WHERE id = $1::uuid`,
    [id],
  );
  if (!row) throw new Error('no such row');
  return row;
}

/** Neither the secret nor its key bytes (base64 after `whsec_`, or as hex) anywhere in the row. */
function holdsNoSecret(t: Test, row: StoredRow, secret: string): void {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  t.equal(row.secret, null, 'the plain column is empty');
  t.notOk(row.whole.includes(secret.slice('whsec_'.length)), 'the base64 secret is nowhere in the row');
  t.notOk(row.whole.includes(key.toString('hex')), 'nor its bytes as hex (bytea in JSON)');
  t.notOk(Buffer.from(row.secret_ciphertext ?? []).includes(key), 'nor in the ciphertext');
  t.equal(row.secret_prefix, secret.slice(0, 10), 'only the display prefix');
}

t.test('a new target stores a sealed box; its deliveries verify with the secret shown once', async (t) => {
  const { row, secret } = await createTarget(ctx, { name: 'Sealed', url: receiver.url, events: ['alert'], filter: {}, enabled: true });
  const saved = await stored(row.id);
  holdsNoSecret(t, saved, secret);
  t.equal(saved.secret_salt?.length, 16, 'a 16-byte salt per row');
  t.equal(presentTarget(row).secret_prefix, secret.slice(0, 10));
  t.notOk(JSON.stringify(presentTarget(await getTarget(db, row.id))).includes(secret), 'never in what the API shows');

  receiver.secret = secret;
  const before = receiver.received.length;
  const { messageId } = await enqueueTestEvent(ctx, row.id);
  t.equal(await createWebhookWorker(ctx).runOnce(), 1);
  t.match(receiver.received[before], { id: messageId, verified: true });

  const rotated = await rotateSecret(ctx, row.id);
  t.not(rotated.secret, secret);
  const resaved = await stored(row.id);
  holdsNoSecret(t, resaved, rotated.secret);
  t.equal(
    openWebhookSecret(ctx.config, { ciphertext: resaved.secret_ciphertext ?? new Uint8Array(0), salt: resaved.secret_salt ?? new Uint8Array(0) }),
    rotated.secret,
  );
});

t.test('a secret stored in clear before migration 0034 is sealed at worker start and still signs', async (t) => {
  // The row as a hub before 0034 wrote it (the secret in clear, nothing else), then 0034 run
  // on it as an upgrade does: its CHECK is lifted for the insert and restored by the re-run.
  const plain = newSecret();
  await db.sql(`ALTER TABLE webhook_targets DROP CONSTRAINT webhook_targets_secret_check`);
  const [old] = await db.sql<{ id: string }>(
    `INSERT INTO webhook_targets (id, name, url, secret, events, created_at, updated_at)
     VALUES (gen_random_uuid(), 'From 0029', $1, $2, ARRAY['alert'], now(), now()) RETURNING id::text AS id`,
    [receiver.url, plain],
  );
  if (!old) throw new Error('not inserted');
  await db.sql(`DELETE FROM schema_migrations WHERE version = '0034'`);
  t.same((await db.migrate()).applied, ['0034_webhook_secret_at_rest'], 'migration 0034 runs on the old row');
  t.match(
    await stored(old.id),
    { secret: plain, secret_ciphertext: null, secret_prefix: plain.slice(0, 10) },
    'SQL alone cannot seal: clear until the worker starts',
  );
  const [check] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_constraint WHERE conname = 'webhook_targets_secret_check'`);
  t.equal(Number(check?.n), 1, 'the CHECK is back');
  const { messageId } = await enqueueTestEvent(ctx, old.id);
  receiver.secret = plain;
  const before = receiver.received.length;
  t.equal(await createWebhookWorker(ctx).runOnce(), 1);
  holdsNoSecret(t, await stored(old.id), plain);
  t.match(receiver.received[before], { id: messageId, verified: true }, 'signed with the secret the receiver has always had');
  t.equal(await sealPlainSecrets(ctx), 0, 'idempotent: nothing left in clear');
  const again = await enqueueTestEvent(ctx, old.id);
  t.equal(await createWebhookWorker(ctx).runOnce(), 1, 'a second start seals nothing and still delivers');
  t.match(receiver.received.at(-1), { id: again.messageId, verified: true });
});

t.test('a hub secret that no longer opens the box fails that target only, with the reason on it', async (t) => {
  const lost = await createTarget(ctx, { name: 'Lost key', url: receiver.url, events: ['alert'], filter: {}, enabled: true });
  // The hub secret changes (another HUB_SESSION_SECRET); a target created since is sealed under it.
  const otherConfig = { ...ctx.config, sessionSecret: 'another hub secret of at least 32 characters' };
  const other = await createTarget(
    { ...ctx, config: otherConfig },
    { name: 'Since the change', url: receiver.url, events: ['alert'], filter: {}, enabled: true },
  );
  await db.sql(`DELETE FROM webhook_deliveries`);
  const worker = createWebhookWorker({ ...ctx, config: otherConfig });
  const lostEvent = await enqueueTestEvent(ctx, lost.row.id);
  const otherEvent = await enqueueTestEvent(ctx, other.row.id);
  receiver.secret = other.secret;
  const before = receiver.received.length;
  t.equal(await worker.runOnce(), 2, 'both claimed; the pass does not throw');
  t.equal(receiver.received.length, before + 1, 'only the target whose box opens was sent to');
  t.match(receiver.received.at(-1), { id: otherEvent.messageId, verified: true });
  const [delivery] = await db.sql<{ status: string; last_error: string | null }>(`SELECT status, last_error FROM webhook_deliveries WHERE message_id = $1`, [
    lostEvent.messageId,
  ]);
  t.match(delivery, { status: 'pending', last_error: SEALED_SECRET_UNREADABLE }, 'retried later: restoring the hub secret heals it');
  t.match(
    presentTarget(await getTarget(db, lost.row.id)),
    { last_error: /cannot be decrypted with this hub secret/, last_status: null },
    'shown on the target',
  );
  t.match(presentTarget(await getTarget(db, other.row.id)), { last_error: null, last_status: 204 }, 'the other target is fine');

  // The right hub secret again: the retry goes out, signed with the secret shown at creation.
  clock.advance(WEBHOOK_RETRY_DELAYS_MS[0]);
  receiver.secret = lost.secret;
  t.equal(await createWebhookWorker(ctx).runOnce(), 1);
  t.match(receiver.received.at(-1), { id: lostEvent.messageId, verified: true });
});

t.test('webhook row keys and TOTP row keys are apart', async (t) => {
  const box = sealSecret(authKeys(ctx.config).totpMasterKey, 'JBSWY3DPEHPK3PXP');
  t.equal(openWebhookSecret(ctx.config, box), null, 'a TOTP box does not open as a webhook secret');
});
