import type { RandomSource } from './random.ts';
import { cryptoRandom } from './random.ts';
import { TOKEN_BODY_LENGTH, generatePrefixedToken, isWellFormedPrefixedToken } from './prefixed-token.ts';

/**
 * One-time provisioning token (docs/collectors.md): `prov_` + 32 CSPRNG bytes as
 * base64url without padding, 48 characters. Stored as `hashSecret(token)`.
 */
export const PROVISIONING_TOKEN_PREFIX = 'prov_';
export const PROVISIONING_TOKEN_LENGTH = PROVISIONING_TOKEN_PREFIX.length + TOKEN_BODY_LENGTH;

export function generateProvisioningToken(random: RandomSource = cryptoRandom): string {
  return generatePrefixedToken(PROVISIONING_TOKEN_PREFIX, random);
}

export function isWellFormedProvisioningToken(text: unknown): text is string {
  return isWellFormedPrefixedToken(PROVISIONING_TOKEN_PREFIX, text);
}

/**
 * The token as pasted by an admin: surrounding whitespace trimmed, nothing else forgiven
 * (base64url is case-sensitive). Undefined when it is not a well-formed token.
 */
export function parseProvisioningToken(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const trimmed = text.trim();
  return isWellFormedProvisioningToken(trimmed) ? trimmed : undefined;
}
