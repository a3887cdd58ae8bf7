import t from 'tap';
import { confusionKey } from './ocr.ts';
import { classifyOneEdit, deletionNeighbourhood, oneEdit } from './one-edit.ts';

t.test('deletion neighbourhood: the string and each one-character deletion, once', async (t) => {
  t.same(deletionNeighbourhood('AB12'), ['AB12', 'B12', 'A12', 'AB2', 'AB1']);
  t.same(deletionNeighbourhood('AAB'), ['AAB', 'AB', 'AA'], 'removing either A gives one key');
  t.same(deletionNeighbourhood('БГ1'), ['БГ1', 'Г1', 'Б1', 'БГ'], 'code points, not UTF-16 units');
});

t.test('oneEdit: exactly one substitution, insertion or deletion', async (t) => {
  t.same(oneEdit('AB12CXE', 'AB12CKE'), { kind: 'substitution', position: 5, queryChar: 'X', plateChar: 'K' });
  t.same(oneEdit('AB12CDE', 'AB123CDE'), { kind: 'insertion', position: 4, plateChar: '3' });
  t.same(oneEdit('AB12CDE', 'AB12CDEX'), { kind: 'insertion', position: 7, plateChar: 'X' }, 'at the end');
  t.same(oneEdit('AB12CDE', 'B12CDE'), { kind: 'deletion', position: 0, queryChar: 'A' }, 'at the start');
  t.same(oneEdit('AAB', 'AB'), { kind: 'deletion', position: 1, queryChar: 'A' }, 'where the strings first differ (a stable choice)');
  t.equal(oneEdit('AB12', 'AB12'), null, 'equal is not an edit');
  t.equal(oneEdit('AB12CDE', 'BA12CDE'), null, 'a transposition is two edits (they share the key A12CDE)');
  t.equal(oneEdit('AB12CDE', 'AB12CXY'), null, 'two substitutions');
  t.equal(oneEdit('AB12CDE', 'XAB12CD'), null, 'an insertion and a deletion (they share AB12CD)');
  t.equal(oneEdit('AB12CDE', 'AB2CD'), null, 'two deletions');
});

t.test('classify: exact, then the same to OCR, then one edit, on confusion keys', async (t) => {
  t.match(classifyOneEdit('AB12C0E', 'AB12C0E', confusionKey), { kind: 'exact', rank: 0, position: null });
  t.match(classifyOneEdit('AB12C0E', 'A812C0E', confusionKey), { kind: 'confusion', rank: 1, position: 1, queryChar: 'B', plateChar: '8' });
  t.match(classifyOneEdit('AB12C0E', 'AB12CXE', confusionKey), { kind: 'substitution', rank: 2, position: 5, queryChar: '0', plateChar: 'X' });
  t.match(
    classifyOneEdit('AB12C0E', 'A812CXE', confusionKey),
    { kind: 'substitution', rank: 2, position: 5 },
    'an in-group difference does not count as an edit: compared after the confusion key',
  );
  t.equal(classifyOneEdit('AB12C0E', 'AB12CXY', confusionKey), null);
});
