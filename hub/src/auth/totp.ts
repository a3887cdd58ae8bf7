import { generate, generateSecret, generateURI, verify } from 'otplib';
import { TOTP_DIGITS, TOTP_ISSUER, TOTP_PERIOD_SECONDS, TOTP_WINDOW_STEPS } from './constants.ts';

/**
 * TOTP per RFC 6238 with SHA-1, 6 digits, 30 s steps (what every authenticator app
 * assumes), over otplib. Time is always passed in: the hub clock, never Date.now().
 */
export function newTotpSecret(): string {
  // 20 random bytes = 160 bits, RFC 4226's recommended HMAC-SHA1 key length; base32 text.
  return generateSecret({ length: 20 });
}

export function totpStep(now: Date): number {
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

export function totpCode(secret: string | Uint8Array, now: Date, digits: 6 | 8 = TOTP_DIGITS): Promise<string> {
  return generate({ secret, epoch: Math.floor(now.getTime() / 1000), period: TOTP_PERIOD_SECONDS, digits });
}

export type TotpCheck = { valid: true; step: number } | { valid: false; reason: 'format' | 'mismatch' | 'replay' };

/**
 * Accepts the code of the current step or one step either side. A code whose step is at or
 * before `lastUsedStep` is refused as a replay: the same code twice, and also an older code
 * once a newer one was used (stricter than "equal to the last code", and what
 * RFC 6238 §5.2 recommends).
 */
export async function checkTotp(secret: string, code: string, now: Date, lastUsedStep: number | null): Promise<TotpCheck> {
  if (!/^\d{6}$/.test(code)) return { valid: false, reason: 'format' };
  const result = await verify({
    secret,
    token: code,
    epoch: Math.floor(now.getTime() / 1000),
    period: TOTP_PERIOD_SECONDS,
    digits: TOTP_DIGITS,
    epochTolerance: TOTP_WINDOW_STEPS * TOTP_PERIOD_SECONDS,
  });
  // TOTP results carry `timeStep`; the union type also covers HOTP, hence the check.
  if (!result.valid || !('timeStep' in result)) return { valid: false, reason: 'mismatch' };
  if (lastUsedStep !== null && result.timeStep <= lastUsedStep) return { valid: false, reason: 'replay' };
  return { valid: true, step: result.timeStep };
}

/** `otpauth://totp/ALPR%20Hub:alice%40example.com?secret=...&issuer=ALPR%20Hub` */
export function totpUri(secret: string, accountName: string): string {
  return generateURI({ issuer: TOTP_ISSUER, label: accountName, secret, period: TOTP_PERIOD_SECONDS, digits: TOTP_DIGITS });
}
