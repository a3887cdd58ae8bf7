import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HubConfig } from '../config/hub-config.ts';

/** The keys derived from the one hub secret; each purpose gets its own HKDF output. */
export interface AuthKeys {
  /** HMAC-SHA256 key for session and partial tokens. */
  sessionKey: Buffer;
  /** Input keying material for per-user TOTP-secret keys (salted again per user). */
  totpMasterKey: Buffer;
  /** HMAC-SHA256 key for time-limited image links (platform/signed-links/signed-link.ts). */
  imageLinkKey: Buffer;
  /** X25519 secret key that camera credentials entered on the hub are sealed to (collectors/cameras/credential-escrow.ts). */
  credentialEscrowKey: Buffer;
}

export const HUB_SECRET_FILE = 'hub-secret';

const cache = new WeakMap<HubConfig, AuthKeys>();

/**
 * Where the secret comes from: `HUB_SESSION_SECRET` when set (several hub processes must
 * share it), otherwise `${dataDir}/hub-secret`, 32 random bytes created with mode 0600 on
 * first use and reused after. Read once per config object. Losing the secret logs every
 * user out and makes stored TOTP secrets undecryptable (users re-enrol via backup codes).
 */
export function authKeys(config: HubConfig): AuthKeys {
  const cached = cache.get(config);
  if (cached) return cached;
  const secret = config.sessionSecret !== undefined ? Buffer.from(config.sessionSecret, 'utf8') : fileSecret(config.dataDir);
  const keys = deriveKeys(secret);
  cache.set(config, keys);
  return keys;
}

export function deriveKeys(secret: Buffer): AuthKeys {
  const derive = (info: string): Buffer => Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), info, 32));
  return {
    sessionKey: derive('alpr-hub session token v1'),
    totpMasterKey: derive('alpr-hub totp secret v1'),
    imageLinkKey: derive('alpr-hub image link v1'),
    credentialEscrowKey: derive('alpr-hub camera credential escrow v1'),
  };
}

function fileSecret(dataDir: string): Buffer {
  const path = join(dataDir, HUB_SECRET_FILE);
  try {
    return decode(readFileSync(path, 'utf8'), path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dataDir, { recursive: true });
  try {
    // `wx`: if another process won the race, fall through and read its secret.
    writeFileSync(path, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return decode(readFileSync(path, 'utf8'), path);
}

function decode(text: string, path: string): Buffer {
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${path} must hold 64 hex characters (32 bytes)`);
  return Buffer.from(hex, 'hex');
}
