import t from 'tap';
import { ocrNormalize } from '@alpr/shared/detection/ocr';
import { buildWatchlistIndex, matchPlate, withinOneConfusion, type IndexedEntry } from './match.ts';

let n = 0;
function entry(watchlistId: string, plate: string, ocrTolerant = false, addedAt = new Date('2026-01-01T00:00:00Z'), forgiveOneMisread = false): IndexedEntry {
  n += 1;
  return {
    entryId: `e${n}`,
    watchlistId,
    watchlistName: watchlistId,
    priority: 'high',
    ocrTolerant,
    forgiveOneMisread,
    plateNumber: plate,
    plateNormalized: ocrNormalize(plate),
    notes: null,
    addedBy: null,
    addedAt,
  };
}

t.test('withinOneConfusion', async (t) => {
  const table: Array<[string, string, boolean, string]> = [
    ['AB12CDE', 'AB12CDE', true, 'identical'],
    ['A812CDE', 'AB12CDE', true, 'B read as 8'],
    ['AB12C0E', 'AB12CDE', true, 'D and 0 are one character once normalized'],
    ['A812C2E', 'AB12CZE', false, 'two confusions'],
    ['AB12CDF', 'AB12CDE', false, 'E and F are not confusable'],
    ['AB12CD', 'AB12CDE', false, 'lengths differ'],
    ['AB17CDE', 'AB11CDE', true, '7 and 1'],
  ];
  for (const [a, b, expected, why] of table) t.equal(withinOneConfusion(ocrNormalize(a), ocrNormalize(b)), expected, why);
});

t.test('matchPlate: exact everywhere, tolerant only where switched on, one match per watchlist', async (t) => {
  const index = buildWatchlistIndex([
    entry('w-strict', 'AB12CDE'),
    entry('w-tolerant', 'AB12CDE', true),
    entry('w-tolerant', 'AB12CD7', true, new Date('2026-02-01T00:00:00Z')),
    entry('w-other', 'XY99ZZZ'),
  ]);
  const kinds = (plate: string) => matchPlate(index, ocrNormalize(plate)).map((m) => [m.entry.watchlistId, m.kind, m.entry.plateNumber]);
  t.same(kinds('AB12CDE'), [
    ['w-strict', 'exact', 'AB12CDE'],
    ['w-tolerant', 'exact', 'AB12CDE'],
  ]);
  t.same(kinds('ab-12 cde'), kinds('AB12CDE'), 'separators and case do not matter');
  t.same(kinds('AB12COE'), kinds('AB12CDE'), 'D/O/0 are one character after normalization: an exact hit');
  t.same(kinds('A812CDE'), [['w-tolerant', 'ocr', 'AB12CDE']], 'one 8-for-B misread: only the tolerant watchlist');
  t.same(kinds('AB12CD1'), [['w-tolerant', 'ocr', 'AB12CD7']], 'the tolerant entry AB12CD7 is one 1/7 away');
  t.same(kinds('A812C2E'), [], 'two misreads are not a hit');
  t.same(kinds('AB12CDF'), [], 'nor a different letter');
  t.same(kinds('XY99ZZZ'), [['w-other', 'exact', 'XY99ZZZ']]);
  t.same(kinds('XY99Z2Z'), [], 'tolerance is per watchlist and off by default');
});

t.test('between two tolerant entries of one watchlist the earliest added wins', async (t) => {
  const index = buildWatchlistIndex([
    entry('w', 'AB12CD8', true, new Date('2026-03-01T00:00:00Z')),
    entry('w', 'AB12CDB', true, new Date('2026-01-01T00:00:00Z')),
  ]);
  t.same(matchPlate(index, ocrNormalize('AB12CD3')), [], 'no confusion group holds 3 and 8');
  const [only] = matchPlate(index, ocrNormalize('AB12C08'));
  t.equal(only?.kind, 'exact', 'AB12C08 is AB12CD8 exactly (D->0)');
});

t.test('forgive one misread: one substitution, insertion or deletion, any character; never two', async (t) => {
  const index = buildWatchlistIndex([
    entry('w-forgiving', 'KX45MNP', false, new Date('2026-01-01T00:00:00Z'), true),
    entry('w-both', 'KX45MNP', true, new Date('2026-01-01T00:00:00Z'), true),
    entry('w-strict', 'KX45MNP'),
  ]);
  const found = (plate: string) =>
    matchPlate(index, ocrNormalize(plate)).map((m) => [m.entry.watchlistId, m.kind, m.edit?.kind ?? null, m.edit?.position ?? null]);
  t.same(found('KX45MNR'), [
    ['w-both', 'one_edit', 'substitution', 6],
    ['w-forgiving', 'one_edit', 'substitution', 6],
  ]);
  t.same(found('KX45MP'), [
    ['w-both', 'one_edit', 'deletion', 5],
    ['w-forgiving', 'one_edit', 'deletion', 5],
  ]);
  t.same(found('KX45MNPA')[0], ['w-both', 'one_edit', 'insertion', 7]);
  const grouped = buildWatchlistIndex([
    entry('w-both', 'KB45MNP', true, new Date('2026-01-01T00:00:00Z'), true),
    entry('w-forgiving', 'KB45MNP', false, new Date('2026-01-01T00:00:00Z'), true),
  ]);
  t.same(
    matchPlate(grouped, ocrNormalize('K845MNP')).map((m) => [m.entry.watchlistId, m.kind, m.edit?.position ?? null]),
    [
      ['w-both', 'ocr', null],
      ['w-forgiving', 'one_edit', 1],
    ],
    'an in-group misread (8 for B): OCR-tolerant wins where switched on, else it is the one misread',
  );
  t.same(found('XK45MNP'), [], 'a transposition is two edits (it shares the deletion key K45MNP)');
  t.same(found('KX45MRR'), [], 'two substitutions');
  t.same(
    found('KX45MNP').map((m) => m[1]),
    ['exact', 'exact', 'exact'],
    'exact wins over every tolerance',
  );
});
