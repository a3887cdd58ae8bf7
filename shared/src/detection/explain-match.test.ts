/** A match in words, over the plates as read (issue 50 item 6: the folding shown, not hidden). */
import t from 'tap';
import { explainPlateMatch } from './explain-match.ts';

t.test('every visible difference is named, confusions apart from real ones', async (t) => {
  const cases: [string, string, string][] = [
    ['WA7CH07', 'WA7CH07', 'exact'],
    ['wa7-ch07', 'WA7 CH07', 'exact'],
    // Folded alike ("100 % similar" before): two confusions, both said.
    ['WA7CH07', 'WA7CHO1', '0 and O are often confused; 7 and 1 are often confused'],
    // One folded edit apart, but two characters visibly differ.
    ['WA7CH07', 'WA7CX01', 'X for H; 7 and 1 are often confused'],
    ['SN70PLV', '5N70P1V', 'S and 5 are often confused; L and 1 are often confused'],
    ['AB123', 'AB1234', 'an extra 4 on the plate'],
    ['AB1234', 'AB124', '3 missing from the plate'],
    ['AB1234', 'A8I24', '3 missing from the plate; B and 8 are often confused; 1 and I are often confused'],
    ['AB1234', 'XB1234', 'X for A'],
    ['AB', 'ABCDE', '3 characters differ in length'],
  ];
  for (const [query, plate, words] of cases) t.equal(explainPlateMatch(query, plate), words, `${query} / ${plate}`);
});
