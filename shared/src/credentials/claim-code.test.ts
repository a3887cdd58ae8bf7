import t from 'tap';
import { generateClaimCode, isCanonicalClaimCode, parseClaimCode } from './claim-code.ts';
import { HUMAN_CODE_ALPHABET } from './alphabet.ts';
import { scriptedRandom } from './scripted.test-helper.ts';

const FORMAT = /^ALPR-[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{4}-[ABCDEFGHJKMNPQRSTUVWXYZ2-9]{4}$/;

t.test('alphabet: A-Z and 2-9 without 0, O, I, L, 1', async (t) => {
  t.equal(HUMAN_CODE_ALPHABET.length, 31);
  t.equal(new Set(HUMAN_CODE_ALPHABET).size, 31, 'no duplicates');
  for (const excluded of ['0', 'O', 'I', 'L', '1']) t.notOk(HUMAN_CODE_ALPHABET.includes(excluded), excluded);
  t.equal(8 * Math.log2(31) > 39.6 && 8 * Math.log2(31) < 39.7, true, '8 symbols carry about 39.6 bits');
});

t.test('format and uniqueness over 1000 draws', async (t) => {
  const codes = Array.from({ length: 1000 }, () => generateClaimCode());
  for (const code of codes) if (!FORMAT.test(code)) t.fail(`bad code ${code}`);
  t.ok(codes.every((c) => isCanonicalClaimCode(c)));
  t.equal(new Set(codes).size, 1000);
});

t.test('uses the random source through rejection sampling', async (t) => {
  t.equal(generateClaimCode(scriptedRandom([0, 1, 2, 3, 4, 5, 6, 30])), 'ALPR-ABCD-EFG9');
  t.equal(generateClaimCode(scriptedRandom([255, 248, 0])), 'ALPR-AAAA-AAAA', 'biased bytes never become symbols');
});

t.test('character distribution is flat (chi-squared)', async (t) => {
  const counts = new Map<string, number>();
  const draws = 10_000;
  for (let i = 0; i < draws; i += 1) {
    for (const ch of generateClaimCode().slice(5).replace('-', '')) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  }
  t.equal(counts.size, 31, 'every symbol appears');
  const expected = (draws * 8) / 31;
  let chi = 0;
  for (const n of counts.values()) chi += (n - expected) ** 2 / expected;
  // 30 degrees of freedom: 80 is exceeded by chance in about 2 of a million runs, while a
  // modulo-biased generator (8 symbols at 9/256 instead of 8/256) scores about 270
  // over these 80 000 symbols.
  t.ok(chi < 80, `chi-squared ${chi.toFixed(1)} < 80`);
});

t.test('parseClaimCode returns the canonical form', async (t) => {
  const table: Array<[unknown, string | undefined, string]> = [
    ['ALPR-ABCD-EFGH', 'ALPR-ABCD-EFGH', 'canonical'],
    ['alpr-abcd-efgh', 'ALPR-ABCD-EFGH', 'lowercase'],
    ['  Alpr-AbCd-EfGh \n', 'ALPR-ABCD-EFGH', 'trimmed, mixed case'],
    ['ALPRABCDEFGH', 'ALPR-ABCD-EFGH', 'no hyphens'],
    ['ALPR-ABCDEFGH', 'ALPR-ABCD-EFGH', 'one hyphen'],
    ['ALPR ABCD EFGH', 'ALPR-ABCD-EFGH', 'spaces instead of hyphens'],
    ['ABCD-EFGH', 'ALPR-ABCD-EFGH', 'prefix left out'],
    ['z9x8w7v6', 'ALPR-Z9X8-W7V6', 'prefix left out, lowercase'],
    ['ALPR-ABCD-EFG', undefined, 'seven symbols'],
    ['ALPR-ABCD-EFGHJ', undefined, 'nine symbols'],
    ['ALPR-ABCD-EFG0', undefined, 'zero is excluded'],
    ['ALPR-ABCD-EFGO', undefined, 'O is excluded'],
    ['ALPR-ABCD-EFGI', undefined, 'I is excluded'],
    ['ALPR-ABCD-EFGL', undefined, 'L is excluded'],
    ['ALPR-ABCD-EFG1', undefined, 'one is excluded'],
    ['ALPX-ABCD-EFGH', undefined, 'wrong prefix'],
    ['APR-ABCD-EFGH', undefined, 'mangled prefix'],
    ['ALPR_ABCD_EFGH', undefined, 'underscores'],
    ['ALPR-ABÇD-EFGH', undefined, 'non-ASCII letter'],
    ['', undefined, 'empty'],
    [undefined, undefined, 'missing'],
    [12345678, undefined, 'number'],
  ];
  for (const [text, expected, why] of table) t.equal(parseClaimCode(text), expected, `${String(text)}: ${why}`);
  const code = generateClaimCode();
  t.equal(parseClaimCode(code.toLowerCase().replace(/-/g, '')), code, 'round trip');
});
