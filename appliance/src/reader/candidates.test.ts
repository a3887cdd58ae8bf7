import t from 'tap';
import { readingsOf } from './candidates.ts';
import type { DecodedChar } from './ctc.ts';
import { formatScore, regionSpelling } from './plate-formats.ts';

const sure = (text: string): DecodedChar[] => [...text].map((char) => ({ char, prob: 0.99, alternatives: [] }));

t.test('format scores follow each region', async (t) => {
  const table: [string, string | undefined, number][] = [
    ['ABC1234', 'us', 1],
    ['1234567', 'us', 1],
    ['ABCDEFGHI', 'us', 0],
    ['SUNTRUP', 'us', 0.5],
    ['AB1', 'us', 0.6],
    ['ABC1D23', 'br', 1],
    ['ABC1234', 'br', 1],
    ['AB12345', 'br', 0],
    ['AB123CD', 'eu', 1],
    ['B', undefined, 0],
  ];
  for (const [plate, region, score] of table) t.equal(formatScore(plate, region), score, `${plate} ${region}`);
  t.equal(regionSpelling('HL0KTYO', 'us'), 'HL0KTY0', 'US plates print O and 0 alike');
  t.equal(regionSpelling('ABO123', 'eu'), 'ABO123');
});

t.test('a confident reading has no look-alikes', async (t) => {
  const [best, ...others] = readingsOf(sure('ABC1234'), 'us');
  t.equal(best?.plate, 'ABC1234');
  t.same(others, []);
});

t.test('an uncertain character yields its alternatives and look-alikes, best first, at most 10 others', async (t) => {
  const decoded = sure('ABC1234');
  decoded[2] = { char: 'C', prob: 0.5, alternatives: [{ char: 'G', prob: 0.4 }] };
  decoded[5] = { char: '8', prob: 0.6, alternatives: [{ char: '3', prob: 0.3 }] };
  const readings = readingsOf(decoded, 'us');
  t.equal(readings[0]?.plate, 'ABC1234'.slice(0, 5) + '84');
  const plates = readings.map((r) => r.plate);
  t.ok(plates.includes('ABG1284'), 'the recognizer’s second choice');
  t.ok(plates.includes('ABC12B4'), 'a look-alike swap');
  t.ok(plates.includes('ABG1234'), 'two characters varied at once');
  t.ok(readings.length <= 11);
  for (let i = 1; i < readings.length; i++) t.ok((readings[i - 1]?.confidence ?? 0) >= (readings[i]?.confidence ?? 0));
});

t.test('Brazilian slots force letters and digits', async (t) => {
  const decoded = sure('ABC1D23');
  decoded[1] = { char: '8', prob: 0.7, alternatives: [] };
  const readings = readingsOf(decoded, 'br');
  t.equal(readings[0]?.plate, 'ABC1D23', 'the digit 8 in a letter slot becomes B');
  t.notOk(
    readings.some((r) => r.plate === 'A8C1D23'),
    'the reading as decoded is no Brazilian plate',
  );
});
