import { asc, isNull, sql } from 'drizzle-orm';
import nacl from 'tweetnacl';
import { hubKeys } from '../db/schema/hub-keys.ts';
import type { DbSession } from '../db/session.ts';

export interface HubKeyPair {
  id: string;
  /** Ed25519 public key, 32 bytes. */
  publicKey: Uint8Array;
  /** tweetnacl Ed25519 secret key, 64 bytes (seed + public key). */
  secretKey: Uint8Array;
  /** Base64 of the public key, as handed to collectors (`hub_public_key`). */
  publicKeyBase64: string;
}

/**
 * The hub's command-signing key: the oldest key not retired, created on first use.
 * Creation runs under a table lock so two hub processes starting together agree on one
 * key. The secret key lives in the database (see docs/collectors.md, "Hub signing key"
 * for how to protect it).
 */
export async function loadOrCreateHubKey(db: DbSession, now: Date): Promise<HubKeyPair> {
  const existing = await currentKey(db);
  if (existing) return existing;
  return db.transaction(async (tx) => {
    await tx.sql('LOCK TABLE hub_keys IN SHARE ROW EXCLUSIVE MODE');
    const raced = await currentKey(tx);
    if (raced) return raced;
    const pair = nacl.sign.keyPair();
    await tx.db.insert(hubKeys).values({
      publicKey: Buffer.from(pair.publicKey),
      secretKey: Buffer.from(pair.secretKey),
      createdAt: now,
    });
    const created = await currentKey(tx);
    if (!created) throw new Error('hub signing key vanished after insert');
    return created;
  });
}

async function currentKey(db: DbSession): Promise<HubKeyPair | undefined> {
  const [row] = await db.db
    .select()
    .from(hubKeys)
    .where(isNull(hubKeys.retiredAt))
    .orderBy(asc(hubKeys.createdAt), asc(sql`${hubKeys.id}`))
    .limit(1);
  if (!row) return undefined;
  const publicKey = new Uint8Array(row.publicKey);
  const secretKey = new Uint8Array(row.secretKey);
  if (publicKey.length !== nacl.sign.publicKeyLength || secretKey.length !== nacl.sign.secretKeyLength) {
    throw new Error(`hub key ${row.id} has the wrong length`);
  }
  return { id: row.id, publicKey, secretKey, publicKeyBase64: Buffer.from(publicKey).toString('base64') };
}
