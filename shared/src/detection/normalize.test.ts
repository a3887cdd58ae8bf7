import t from 'tap';
import { DEFAULT_DIRECTION_MAPPING, normalizeDirection, normalizeMac, normalizePlateText } from './normalize.ts';
import { PLATE_TEXT_PATTERN } from './schema.ts';

t.test('plate text: spec rule 1 plus the Unicode decisions in docs/normalization.md', async (t) => {
  const table: Array<[string | undefined | null, string | undefined, string]> = [
    ['AB123CD', 'AB123CD', 'already normalized'],
    ['ab123cd', 'AB123CD', 'lowercase is uppercased'],
    ['AB 123 CD', 'AB123CD', 'spaces dropped'],
    ['AB-123-CD', 'AB123CD', 'dashes dropped'],
    ['AB.123.CD', 'AB123CD', 'dots dropped'],
    ['  xy12\tabc\n', 'XY12ABC', 'surrounding and inner whitespace dropped'],
    ['M·AB_12/3:4,5|6', 'MAB123456', 'other separators dropped'],
    ['B–AB 1234', 'BAB1234', 'en dash dropped'],
    ['HH-ÖK 12', 'HHÖK12', 'German umlaut kept as a letter'],
    ['m-öü 7', 'MÖÜ7', 'lowercase umlauts uppercased, kept'],
    ['HH-O\u0308K 12', 'HHÖK12', 'decomposed umlaut composed by NFKC'],
    ['а123вс 77', 'А123ВС77', 'Cyrillic kept and uppercased (not folded to Latin)'],
    ['京A·12345', '京A12345', 'CJK province character kept'],
    ['ＡＢＣ１２３', 'ABC123', 'full-width letters and digits folded to ASCII'],
    ['ａｂ－１２', 'AB12', 'full-width lowercase and full-width hyphen'],
    ['①②AB', '12AB', 'circled digits folded by NFKC'],
    ['١٢٣ أ ب', '١٢٣أب', 'Arabic-Indic digits and Arabic letters kept'],
    ['straße1', 'STRASSE1', 'sharp s uppercases to SS'],
    ['AĸB1', 'AB1', 'letter without an uppercase form dropped, not fatal'],
    ['unknown', undefined, 'vendor_a failed read'],
    ['UNKNOWN', undefined, 'uppercase unknown'],
    [' Unknown ', undefined, 'padded unknown'],
    ['no-plate', undefined, 'NOPLATE marker'],
    ['', undefined, 'empty'],
    ['   ', undefined, 'whitespace only'],
    ['-.-', undefined, 'separators only'],
    [undefined, undefined, 'missing'],
    [null, undefined, 'null'],
    ['A'.repeat(32), 'A'.repeat(32), '32 characters is the maximum'],
    ['A'.repeat(33), undefined, '33 characters is OCR garbage'],
    ['A B'.repeat(16), 'AB'.repeat(16), 'length counted after separators are removed'],
  ];
  for (const [raw, expected, why] of table) t.equal(normalizePlateText(raw), expected, `${String(raw)}: ${why}`);
});

t.test('plate text: leading Chinese plate-colour character', async (t) => {
  const table: Array<[string, string, string]> = [
    ['蓝京A12345', '京A12345', 'blue'],
    ['黄粤B·12345', '粤B12345', 'yellow, separator after it'],
    ['白 WJ1234', '白WJ1234', 'not followed by Han + Latin: kept'],
    ['绿沪AD12345', '沪AD12345', 'green new-energy plate'],
    ['黑A12345', '黑A12345', '黑 is also Heilongjiang: a bare Heilongjiang plate keeps it'],
    ['黑黑A12345', '黑A12345', 'black Heilongjiang plate loses only the colour'],
    ['蓝黑A12345', '黑A12345', 'blue Heilongjiang plate'],
    ['黄绿粤B12345', '粤B12345', 'two-colour (hybrid) prefix'],
    ['蓝', '蓝', 'colour alone stays (nothing else to keep)'],
    ['蓝12345', '蓝12345', 'not a Chinese plate after it: kept'],
    ['京蓝A1', '京蓝A1', 'colour character not at the start: kept'],
  ];
  for (const [raw, expected, why] of table) t.equal(normalizePlateText(raw), expected, `${raw}: ${why}`);
});

t.test('every normalized plate satisfies the wire pattern', async (t) => {
  const samples = ['ab-12', 'ŉ1', 'ǅ2', 'ʰA', 'Σς', 'Ⅳ9', 'ﬀ3', 'ﾊﾝ1'];
  for (const raw of samples) {
    const plate = normalizePlateText(raw);
    if (plate !== undefined) t.match(plate, PLATE_TEXT_PATTERN, raw);
  }
  t.equal(normalizePlateText('ŉ1'), 'N1', 'modifier apostrophe from ŉ dropped');
  t.equal(normalizePlateText('ﬀ3'), 'FF3', 'ligature folded');
});

t.test('MAC: spec rule 2', async (t) => {
  const table: Array<[string | undefined | null, string | undefined, string]> = [
    ['aa:bb:cc:dd:ee:ff', 'aabbccddeeff', 'colons (vendor_a)'],
    ['AA:BB:CC:DD:EE:FF', 'aabbccddeeff', 'uppercase with colons'],
    ['7CD8B328641B', '7cd8b328641b', 'uppercase, no separators (vendor_b bootstrap)'],
    ['7c-d8-b3-28-64-1b', '7cd8b328641b', 'dashes'],
    ['7cd8.b328.641b', '7cd8b328641b', 'Cisco dots'],
    [' 7c:d8:b3:28:64:1b ', '7cd8b328641b', 'surrounding spaces'],
    ['zz:bb:cc:dd:ee:ff', undefined, 'non-hex letters are not silently dropped'],
    ['aa:bb:cc:dd:ee:fg', undefined, 'one non-hex letter'],
    ['aa:bb:cc:dd:ee', undefined, 'too short'],
    ['aa:bb:cc:dd:ee:ff:00', undefined, 'too long (EUI-64 prefix)'],
    ['aa/bb/cc/dd/ee/ff', undefined, 'unknown separator'],
    ['0xaabbccddeeff', undefined, 'hex prefix'],
    ['', undefined, 'empty'],
    [undefined, undefined, 'missing'],
    [null, undefined, 'null'],
  ];
  for (const [raw, expected, why] of table) t.equal(normalizeMac(raw), expected, `${String(raw)}: ${why}`);
});

t.test('direction: spec rule 4 synonyms', async (t) => {
  const table: Array<[string | undefined | null, string]> = [
    ['in', 'entering'],
    ['entry', 'entering'],
    ['entering', 'entering'],
    ['approach', 'entering'],
    ['out', 'exiting'],
    ['exit', 'exiting'],
    ['exiting', 'exiting'],
    ['leaving', 'exiting'],
    ['unknown', 'unknown'],
    ['', 'unknown'],
    [undefined, 'unknown'],
    [null, 'unknown'],
    ['IN', 'entering'],
    [' Exit ', 'exiting'],
    ['Leaving', 'exiting'],
    ['sideways', 'unknown'],
    ['north', 'unknown'],
    ['constructor', 'unknown'],
    ['__proto__', 'unknown'],
    ['toString', 'unknown'],
    ['hasOwnProperty', 'unknown'],
  ];
  for (const [raw, expected] of table) t.equal(normalizeDirection(raw), expected, String(raw));
});

t.test('direction: vendor_a forward/reverse through the per-camera mapping', async (t) => {
  t.same(DEFAULT_DIRECTION_MAPPING, { forward: 'entering', reverse: 'exiting' }, 'ExNVR default');
  t.equal(normalizeDirection('forward'), 'entering');
  t.equal(normalizeDirection('reverse'), 'exiting');
  t.equal(normalizeDirection('backward'), 'exiting', 'the manual also says backward');
  t.equal(normalizeDirection('FORWARD'), 'entering');
  const swapped = { forward: 'exiting', reverse: 'entering' } as const;
  t.equal(normalizeDirection('forward', swapped), 'exiting', 'camera mounted facing the exit');
  t.equal(normalizeDirection('reverse', swapped), 'entering');
  const off = { forward: 'unknown', reverse: 'unknown' } as const;
  t.equal(normalizeDirection('forward', off), 'unknown', 'mapping can switch the words off');
  t.equal(normalizeDirection('in', swapped), 'entering', 'site words are not affected by the mapping');
  t.equal(normalizeDirection('unknown', swapped), 'unknown');
});
