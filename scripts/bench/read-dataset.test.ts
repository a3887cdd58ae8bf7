/**
 * The reader on 20 of the labelled photographs (every 11th, so all the set's sources are in it),
 * through the worker-thread reader a camera uses. The floor sits a little under what the reader
 * measured on these 20 when this was written; `npm run bench:read` reads all 222.
 */
import { readFileSync } from 'node:fs';
import t from 'tap';
import { openFrameReader } from '../../appliance/src/reader/open-reader.ts';
import { charsInPlace, loadLabels, scorePhoto } from './read-dataset.ts';

const FLOOR_EXACT = 12; // of 20
const subset = loadLabels()
  .filter((_, i) => i % 11 === 0)
  .slice(0, 20);

t.test('reads the plates of 20 dataset photographs', async (t) => {
  t.equal(subset.length, 20);
  const reader = await openFrameReader();
  t.teardown(() => reader.close());
  let exact = 0;
  const misses: string[] = [];
  for (const label of subset) {
    const result = await reader.read(readFileSync(label.image), { region: 'us' });
    const score = scorePhoto(label, result.plates);
    if (score.exact) exact++;
    else misses.push(`${label.plate}→${score.read ?? '-'}`);
    for (const plate of result.plates) {
      t.ok(plate.candidates.length <= 10, 'at most 10 candidates');
      t.notOk(
        plate.candidates.some((c) => c.plate === plate.plate),
        'the best reading is not repeated',
      );
    }
  }
  t.comment(`exact ${exact} of 20; missed or misread: ${misses.join(' ')}`);
  t.ok(exact >= FLOOR_EXACT, `at least ${FLOOR_EXACT} of 20 read exactly (got ${exact})`);
});

t.test('characters are counted in place from either end', async (t) => {
  t.equal(charsInPlace('ABC1234', 'ABC1234'), 7);
  t.equal(charsInPlace('BC1234', 'ABC1234'), 6, 'a lost first character costs one');
  t.equal(charsInPlace('XYZ', 'ABC1234'), 0);
});
