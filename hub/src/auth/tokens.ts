import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Session and partial tokens: JWT compact form, HS256 only (our choice of algorithm).
 * A fixed header is compared byte for byte, so `alg: none` or RS/HS confusion cannot pass.
 */
export const tokenTypes = ['partial', 'access'] as const;
export type TokenType = (typeof tokenTypes)[number];

const claimsSchema = z.object({
  sub: z.string().min(1),
  type: z.enum(tokenTypes),
  iat: z.number().int(),
  exp: z.number().int(),
  /** Access tokens: when the second factor was last proven (epoch seconds). */
  tfa: z.number().int().optional(),
  /** Access tokens: session id (random), what logout revokes server-side. */
  sid: z.string().min(16).max(64).optional(),
  /** Access tokens: issue time in milliseconds, compared with users.sessions_valid_after. */
  ims: z.number().int().optional(),
});
export type TokenClaims = z.infer<typeof claimsSchema>;

const HEADER = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function sign(key: Buffer, input: string): Buffer {
  return createHmac('sha256', key).update(input).digest();
}

export function signToken(key: Buffer, claims: TokenClaims): string {
  const body = `${HEADER}.${base64url(JSON.stringify(claims))}`;
  return `${body}.${sign(key, body).toString('base64url')}`;
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: 'malformed' | 'signature' | 'claims' | 'expired' };

/** Signature first, then shape, then expiry at `now`. Pure apart from the HMAC. */
export function verifyToken(key: Buffer, token: string, now: Date): TokenCheck {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return { ok: false, reason: 'malformed' };
  const [header, payload, signature] = parts as [string, string, string];
  const expected = sign(key, `${header}.${payload}`);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const claims = claimsSchema.safeParse(json);
  if (!claims.success) return { ok: false, reason: 'claims' };
  if (claims.data.exp <= Math.floor(now.getTime() / 1000)) return { ok: false, reason: 'expired' };
  return { ok: true, claims: claims.data };
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
