import t from 'tap';
import { API_KEY_LENGTH, API_KEY_PREFIX, apiKeyPrefix, generateApiKey, isWellFormedApiKey } from './api-key.ts';
import { scriptedRandom } from './scripted.test-helper.ts';

t.test('format: alpr_ + 43 base64url characters, 48 in total', async (t) => {
  t.equal(API_KEY_PREFIX, 'alpr_');
  t.equal(API_KEY_LENGTH, 48);
  const key = generateApiKey();
  t.match(key, /^alpr_[A-Za-z0-9_-]{43}$/);
  t.equal(key.length, 48);
  t.ok(isWellFormedApiKey(key));
});

t.test('encodes the 32 random bytes as unpadded base64url', async (t) => {
  t.equal(generateApiKey(scriptedRandom([0])), `alpr_${'A'.repeat(43)}`);
  t.equal(generateApiKey(scriptedRandom([255])), `alpr_${'_'.repeat(42)}8`, 'url-safe alphabet, no padding');
  t.equal(generateApiKey(scriptedRandom(Array.from({ length: 32 }, (_, i) => i))), 'alpr_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8');
  t.throws(() => generateApiKey(() => new Uint8Array(16)), RangeError, 'a short random source is refused');
});

t.test('1000 keys are distinct and well formed', async (t) => {
  const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey()));
  t.equal(keys.size, 1000);
  t.ok([...keys].every((k) => isWellFormedApiKey(k)));
});

t.test('isWellFormedApiKey rejects', async (t) => {
  const good = `alpr_${'A'.repeat(42)}E`;
  t.ok(isWellFormedApiKey(good), 'control');
  const bad: Array<[unknown, string]> = [
    [`prov_${'A'.repeat(43)}`, 'wrong prefix'],
    [`ALPR_${'A'.repeat(43)}`, 'prefix is case-sensitive'],
    [`alpr-${'A'.repeat(43)}`, 'hyphen instead of underscore'],
    [`alpr_${'A'.repeat(42)}`, 'one short'],
    [`alpr_${'A'.repeat(44)}`, 'one long'],
    [`alpr_${'A'.repeat(42)}=`, 'padding'],
    [`alpr_${'A'.repeat(41)}E=`, 'padded form of a key'],
    [`alpr_${'A'.repeat(42)}+`, 'standard base64 +'],
    [`alpr_/${'A'.repeat(42)}`, 'standard base64 /'],
    [`alpr_${'A'.repeat(41)} E`, 'space inside'],
    [` alpr_${'A'.repeat(42)}`, 'leading space (callers trim, the check does not)'],
    [`alpr_${'A'.repeat(42)}B`, 'non-canonical last character (spare bits set)'],
    [`alpr_${'Ä'.repeat(43)}`, 'non-ASCII'],
    ['', 'empty'],
    [undefined, 'missing'],
    [48, 'not a string'],
  ];
  for (const [text, why] of bad) t.notOk(isWellFormedApiKey(text), why);
});

t.test('apiKeyPrefix is the first 10 characters', async (t) => {
  const key = generateApiKey(scriptedRandom(Array.from({ length: 32 }, (_, i) => i)));
  t.equal(apiKeyPrefix(key), 'alpr_AAECA');
  t.equal(apiKeyPrefix(key).length, 10);
});
