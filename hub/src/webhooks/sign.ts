/**
 * Signing in the Standard Webhooks layout (docs/webhooks.md "Verifying"), pure: the secret
 * is `whsec_` + base64 of random bytes, the signed content is `${id}.${timestamp}.${body}`
 * (timestamp in whole seconds), the signature header `v1,` + base64 of its HMAC-SHA256.
 * Receivers can use any Standard Webhooks verifier with the same secret.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** 24 random bytes: within the 24 to 64 the layout recommends. */
const SECRET_BYTES = 24;

export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The stable idempotency id of one event for one target (the webhook-id header). */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers of one attempt: a fresh timestamp and signature, the same id every time. */
export function signedHeaders(secret: string, id: string, now: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secret, id, timestamp, body),
  };
}
