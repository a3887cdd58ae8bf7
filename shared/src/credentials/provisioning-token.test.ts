import t from 'tap';
import { PROVISIONING_TOKEN_LENGTH, generateProvisioningToken, isWellFormedProvisioningToken, parseProvisioningToken } from './provisioning-token.ts';
import { generateApiKey } from './api-key.ts';
import { scriptedRandom } from './scripted.test-helper.ts';

t.test('format: prov_ + 43 base64url characters', async (t) => {
  t.equal(PROVISIONING_TOKEN_LENGTH, 48);
  const token = generateProvisioningToken();
  t.match(token, /^prov_[A-Za-z0-9_-]{43}$/);
  t.ok(isWellFormedProvisioningToken(token));
  t.equal(generateProvisioningToken(scriptedRandom([0])), `prov_${'A'.repeat(43)}`);
});

t.test('1000 tokens are distinct', async (t) => {
  t.equal(new Set(Array.from({ length: 1000 }, () => generateProvisioningToken())).size, 1000);
});

t.test('parse trims, validates, and forgives nothing else', async (t) => {
  const token = generateProvisioningToken();
  t.equal(parseProvisioningToken(token), token);
  t.equal(parseProvisioningToken(`  ${token}\n`), token, 'pasted with whitespace');
  const bad: Array<[unknown, string]> = [
    [generateApiKey(), 'an API key is not a provisioning token'],
    [token.toUpperCase(), 'case matters in base64url'],
    [token.slice(0, -1), 'truncated'],
    [`${token}A`, 'too long'],
    [`prov_${'A'.repeat(42)}=`, 'padding'],
    [`prov_${'A'.repeat(42)}+`, 'standard base64'],
    [`prov_${'A'.repeat(42)}B`, 'non-canonical'],
    ['prov_', 'prefix only'],
    [null, 'null'],
    [{ token }, 'object'],
  ];
  for (const [text, why] of bad) {
    t.equal(parseProvisioningToken(text), undefined, why);
    t.notOk(isWellFormedProvisioningToken(text), why);
  }
});
