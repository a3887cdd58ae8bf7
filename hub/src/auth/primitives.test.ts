import t from 'tap';
import { generateBackupCodes, hashBackupCode, normalizeBackupCode } from './backup-codes.ts';
import { deriveKeys } from '../platform/secrets/hub-secret.ts';
import { lockedUntil } from './lockout.ts';
import { slidingWindowDecision, tokenBucketDecision } from './rate-limit-policy.ts';
import { openSecret, sealSecret } from '../platform/secrets/secret-box.ts';
import { signToken, verifyToken } from './tokens.ts';

const keys = deriveKeys(Buffer.alloc(32, 7));
const T0 = new Date('2026-01-15T10:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

t.test('tokens: signed, typed, expiring; tampering and alg swaps fail', async (t) => {
  const iat = T0.getTime() / 1000;
  const token = signToken(keys.sessionKey, { sub: 'u1', type: 'partial', iat, exp: iat + 300 });
  t.match(verifyToken(keys.sessionKey, token, at(299_000)), { ok: true, claims: { sub: 'u1', type: 'partial' } });
  t.same(verifyToken(keys.sessionKey, token, at(300_000)), { ok: false, reason: 'expired' });
  t.same(verifyToken(deriveKeys(Buffer.alloc(32, 8)).sessionKey, token, T0), { ok: false, reason: 'signature' }, 'other hub secret');
  const [h, p, s] = token.split('.') as [string, string, string];
  const forged = Buffer.from(JSON.stringify({ sub: 'u1', type: 'access', iat, exp: iat + 300 })).toString('base64url');
  t.same(verifyToken(keys.sessionKey, `${h}.${forged}.${s}`, T0), { ok: false, reason: 'signature' }, 'payload swapped');
  const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  t.same(verifyToken(keys.sessionKey, `${none}.${p}.`, T0), { ok: false, reason: 'malformed' }, 'alg none');
  t.same(verifyToken(keys.sessionKey, 'garbage', T0), { ok: false, reason: 'malformed' });
});

t.test('backup codes: format, normalization, hashing', async (t) => {
  const codes = generateBackupCodes();
  t.equal(codes.length, 10);
  t.equal(new Set(codes).size, 10);
  for (const code of codes) t.match(code, /^[0-9A-F]{4}-[0-9A-F]{4}$/);
  t.equal(normalizeBackupCode(' a1b2-c3d4 '), 'A1B2C3D4');
  t.equal(normalizeBackupCode('a1b2c3d4'), 'A1B2C3D4');
  t.equal(normalizeBackupCode('A1B2-C3D'), null);
  t.equal(normalizeBackupCode('G1B2-C3D4'), null);
  t.match(hashBackupCode('A1B2C3D4'), /^[0-9a-f]{64}$/);
  t.equal(hashBackupCode('A1B2C3D4'), hashBackupCode(normalizeBackupCode('a1b2-c3d4') ?? ''));
});

t.test('lockout rule: 5 failures within 5 minutes lock for 15 minutes', async (t) => {
  const five = [0, 60_000, 120_000, 180_000, 240_000].map(at);
  t.equal(lockedUntil(five.slice(0, 4), at(250_000)), null, 'four failures: not locked');
  t.same(lockedUntil(five, at(250_000)), at(240_000 + 15 * 60_000), 'locked until 15 min after the 5th');
  t.equal(lockedUntil(five, at(240_000 + 15 * 60_000)), null, 'unlocked exactly then');
  const spread = [0, 80_000, 160_000, 240_000, 301_000].map(at);
  t.equal(lockedUntil(spread, at(302_000)), null, '5 failures over more than 5 minutes: not locked');
});

t.test('sliding window: at most N in any window; Retry-After when the oldest expires', async (t) => {
  const hits = [0, 10_000, 20_000].map(at);
  const ok = slidingWindowDecision(hits, at(30_000), 4, 60_000);
  t.match(ok, { allowed: true, limit: 4, remaining: 0, retryAfterSeconds: 0 });
  t.same(ok.resetAt, at(60_000));
  const full = slidingWindowDecision([...hits, at(30_000)], at(31_000), 4, 60_000);
  t.match(full, { allowed: false, remaining: 0, retryAfterSeconds: 29 });
  t.match(slidingWindowDecision([...hits, at(30_000)], at(60_001), 4, 60_000), { allowed: true }, 'oldest hit left the window');
});

t.test('token bucket: a burst of N, then one per window/N', async (t) => {
  let tat: Date | null = null;
  const remaining: number[] = [];
  for (let i = 0; i < 5; i++) {
    const d = tokenBucketDecision(tat, T0, 5, 60_000);
    t.ok(d.allowed, `burst hit ${i + 1}`);
    remaining.push(d.remaining);
    tat = d.nextTat;
  }
  t.same(remaining, [4, 3, 2, 1, 0]);
  const refused = tokenBucketDecision(tat, T0, 5, 60_000);
  t.match(refused, { allowed: false, remaining: 0, retryAfterSeconds: 12 });
  t.same(refused.resetAt, at(60_000), 'full again after a minute');
  t.match(tokenBucketDecision(tat, at(12_000), 5, 60_000), { allowed: true, remaining: 0 }, 'one token back after 12 s');
});

t.test('secret box: per-user salt, tamper-evident, bound to the hub secret', async (t) => {
  const a = sealSecret(keys.totpMasterKey, 'JBSWY3DPEHPK3PXP');
  const b = sealSecret(keys.totpMasterKey, 'JBSWY3DPEHPK3PXP');
  t.equal(a.salt.length, 16);
  t.not(a.salt.toString('hex'), b.salt.toString('hex'));
  t.not(a.ciphertext.toString('hex'), b.ciphertext.toString('hex'));
  t.notOk(a.ciphertext.includes(Buffer.from('JBSWY3DPEHPK3PXP')), 'plaintext not in ciphertext');
  t.equal(openSecret(keys.totpMasterKey, a), 'JBSWY3DPEHPK3PXP');
  const flipped = Buffer.from(a.ciphertext);
  flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
  t.equal(openSecret(keys.totpMasterKey, { ciphertext: flipped, salt: a.salt }), null);
  t.equal(openSecret(keys.totpMasterKey, { ciphertext: a.ciphertext, salt: b.salt }), null, 'wrong salt');
  t.equal(openSecret(deriveKeys(Buffer.alloc(32, 9)).totpMasterKey, a), null, 'other hub secret');
});
