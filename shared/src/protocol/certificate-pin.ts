import { z } from 'zod';

/**
 * The hub certificate pin (docs/security.md "Certificate pinning"): the SHA-256 of the
 * certificate's DER bytes, written as 32 upper-case hex pairs joined by colons, the form
 * `openssl x509 -noout -fingerprint -sha256` and Node's `fingerprint256` print. People copy
 * it from one screen to another, so spaces, missing colons and lower case are accepted and
 * normalised; anything that is not 64 hex digits is not a pin.
 */
export function normalizeSha256Fingerprint(text: string): string | undefined {
  const hex = text
    .trim()
    .replace(/^sha-?256\s*(fingerprint)?\s*=?\s*/i, '')
    .replace(/[\s:]/g, '')
    .toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) return undefined;
  return hex.match(/../g)?.join(':');
}

export const sha256FingerprintSchema = z.string().transform((value, ctx) => {
  const pin = normalizeSha256Fingerprint(value);
  if (pin === undefined) {
    ctx.addIssue({ code: 'custom', message: 'not a SHA-256 fingerprint (64 hex digits, colons optional)' });
    return z.NEVER;
  }
  return pin;
});

/**
 * Payload of a `trust_hub_certificate` command: the certificate the hub will switch to.
 * Signed like every command, so only the hub's key can add a pin; the appliance then
 * accepts the current and this certificate until it first meets this one, and from then
 * on this one only.
 */
export const trustHubCertificatePayloadSchema = z.object({ sha256: sha256FingerprintSchema }).strict();
export type TrustHubCertificatePayload = z.infer<typeof trustHubCertificatePayloadSchema>;
