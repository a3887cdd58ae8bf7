export { cryptoRandom, randomSymbols } from './random.ts';
export type { RandomSource } from './random.ts';
export { constantTimeEqual, hashSecret } from './secret.ts';
export { HUMAN_CODE_ALPHABET } from './alphabet.ts';
export { API_KEY_DISPLAY_PREFIX_LENGTH, API_KEY_LENGTH, API_KEY_PREFIX, apiKeyPrefix, generateApiKey, isWellFormedApiKey } from './api-key.ts';
export {
  PROVISIONING_TOKEN_LENGTH,
  PROVISIONING_TOKEN_PREFIX,
  generateProvisioningToken,
  isWellFormedProvisioningToken,
  parseProvisioningToken,
} from './provisioning-token.ts';
export { CLAIM_CODE_PREFIX, CLAIM_CODE_SYMBOLS, generateClaimCode, isCanonicalClaimCode, parseClaimCode } from './claim-code.ts';
export { LINK_CODE_LENGTH, generateLinkCode, parseLinkCode } from './link-code.ts';
