import t from 'tap';
import { CONFUSION_GROUPS, OCR_NORMALIZED_MAX_LENGTH, areConfusable, confusionKey, ocrNormalize, trigramSimilarity, trigrams } from './ocr.ts';

t.test('ocrNormalize is the spec plate_normalized', async (t) => {
  const table: Array<[string, string, string]> = [
    ['OQD', '000', 'O, Q, D become 0'],
    ['IL', '11', 'I, L become 1'],
    ['S', '5', 'S becomes 5'],
    ['oqdils', '000115', 'uppercased first'],
    ['B8Z2G67T', 'B8Z2G67T', 'other confusables are left to the fuzzy groups'],
    ['AB123CD', 'AB123C0', 'typical plate: C is not confusable in plate_normalized'],
    ['HH-ÖK 12', 'HHÖK12', 'separators dropped, Ö is not O'],
    ['ＳＯＬ１', '5011', 'full-width folded before substitution'],
    ['京A·12345', '京A12345', 'CJK kept'],
    ['A'.repeat(25), 'A'.repeat(20), 'truncated to 20'],
    ['京'.repeat(25), '京'.repeat(20), 'truncated by characters, not bytes'],
    ['', '', 'empty stays empty'],
    ['--', '', 'separators only'],
  ];
  for (const [raw, expected, why] of table) t.equal(ocrNormalize(raw), expected, `${raw}: ${why}`);
  t.equal(OCR_NORMALIZED_MAX_LENGTH, 20);
});

t.test('ocrNormalize is idempotent', async (t) => {
  for (const raw of ['ab-12 sol', 'OQDILS', 'x'.repeat(30), 'HHÖK12']) t.equal(ocrNormalize(ocrNormalize(raw)), ocrNormalize(raw), raw);
});

t.test('confusion groups as in spec Search semantics 3', async (t) => {
  t.same(CONFUSION_GROUPS, [
    ['0', 'O', 'Q', 'D'],
    ['1', 'I', 'L', '7'],
    ['5', 'S'],
    ['8', 'B'],
    ['2', 'Z'],
    ['6', 'G'],
  ]);
  for (const group of CONFUSION_GROUPS) {
    for (const member of group) t.equal(confusionKey(member), group[0], `${member} -> ${group[0]}`);
  }
  for (const other of ['A', 'C', 'E', 'K', '3', '4', '9', 'Ö', 'Ж', '京']) t.equal(confusionKey(other), other, `${other} is its own group`);
});

t.test('confusionKey and areConfusable', async (t) => {
  t.equal(confusionKey('b0i-25 g'), '80125 6'.replace(' ', ''), 'cleaned, then mapped');
  t.equal(confusionKey('8O1ZS'), confusionKey('B0I25'));
  t.equal(confusionKey(ocrNormalize('XQL7SBZG')), confusionKey('XQL7SBZG'), 'computable from plate_normalized');
  const table: Array<[string, string, boolean, string]> = [
    ['AB123CD', 'AB123CD', true, 'identical'],
    ['AB123CD', 'A8I23C0', true, 'B/8, 1/I, D/0'],
    ['AB123CD', 'ab-l2e-cq', false, 'E is not 3'],
    ['XY17SZG', 'XYL1522', false, 'G is 6, not 2'],
    ['XY17SZG', 'XYL1526', true, 'every confusion group at once'],
    ['AB123CD', 'AB123C', false, 'different length'],
    ['AB123CD', 'AB123CE', false, 'a real difference'],
    ['', '', false, 'nothing is not a match'],
    ['--', '..', false, 'separators only are nothing'],
  ];
  for (const [a, b, expected, why] of table) {
    t.equal(areConfusable(a, b), expected, `${a} ~ ${b}: ${why}`);
    t.equal(areConfusable(b, a), expected, 'symmetric');
  }
});

t.test('trigrams follow pg_trgm show_trgm', async (t) => {
  t.same([...trigrams('cat')].sort(), ['  c', ' ca', 'at ', 'cat']);
  t.same([...trigrams('Foo|bar')].sort(), ['  b', '  f', ' ba', ' fo', 'ar ', 'bar', 'foo', 'oo '], 'lowercased, split on non-alphanumerics');
  t.same([...trigrams('aaaa')].sort(), ['  a', ' aa', 'aa ', 'aaa'], 'a set: repeats counted once');
  t.same([...trigrams('a')].sort(), ['  a', ' a '], 'one-letter word');
  t.same([...trigrams('京A1')].sort(), ['  京', ' 京a', 'a1 ', '京a1'], 'CJK counted by character');
  t.equal(trigrams('').size, 0);
  t.equal(trigrams(' - ').size, 0);
});

t.test('trigramSimilarity equals pg_trgm similarity()', async (t) => {
  const word = trigramSimilarity('word', 'two words');
  t.equal(word, Math.fround(4 / 11), 'documented pg_trgm example, as float4');
  t.ok(Math.abs(word - 0.363636) < 1e-6, '0.363636...');
  const table: Array<[string, string, number, string]> = [
    ['abc', 'abc', 1, 'identical'],
    ['ABC', 'abc', 1, 'case-insensitive'],
    ['abc', 'xyz', 0, 'nothing shared'],
    ['', 'abc', 0, 'empty side'],
    ['', '', 0, 'both empty: 0, not NaN'],
    ['AB1230', 'AB1231', 5 / 9, 'last character differs: 5 shared of 9'],
    ['AB1230', 'XB1230', 4 / 10, 'first character differs'],
    ['AB1230', 'AB123', 5 / 8, 'one character shorter: 5 shared of 8'],
  ];
  for (const [a, b, expected, why] of table) {
    t.equal(trigramSimilarity(a, b), Math.fround(expected), `${a} / ${b}: ${why}`);
    t.equal(trigramSimilarity(b, a), trigramSimilarity(a, b), 'symmetric');
  }
});

t.test('fuzzy search threshold 0.6 on normalized plates', async (t) => {
  const stored = ocrNormalize('AB 123 CD');
  t.ok(trigramSimilarity(ocrNormalize('AB123C0'), stored) > 0.6, 'an O/0 misread matches exactly after normalization');
  t.ok(trigramSimilarity(ocrNormalize('AB1234CD'), stored) < 0.6, 'an inserted character falls below the threshold');
  t.ok(trigramSimilarity(ocrNormalize('ABC123CD'), ocrNormalize('ABC123CE')) > 0.6, 'long plates tolerate one last-character miss');
});
