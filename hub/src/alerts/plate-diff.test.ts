import t from 'tap';
import { describeDiff, plateDiff } from './plate-diff.ts';

const marks = (chars: Array<{ char: string; differs: boolean }>): string => chars.map((c) => (c.differs ? `[${c.char}]` : c.char)).join('');

t.test('the characters an operator must look at are marked on both plates', async (t) => {
  const cases: Array<[read: string, listed: string, readMarked: string, listedMarked: string, said: string]> = [
    ['BZ60KX', 'BZ60KX', 'BZ60KX', 'BZ60KX', 'same characters'],
    ['8Z60KX', 'BZ60KX', '[8]Z60KX', '[B]Z60KX', '8 read where B is listed'],
    ['AB12COE', 'AB12C0E', 'AB12C[O]E', 'AB12C[0]E', 'O read where 0 is listed'],
    ['AB12CDEF', 'AB12CDE', 'AB12CDE[F]', 'AB12CDE', 'F read but not listed'],
    ['AB2CDE', 'AB12CDE', 'AB2CDE', 'AB[1]2CDE', '1 listed but not read'],
    ['', 'AB1', '', '[A][B][1]', 'AB1 listed but not read'],
  ];
  for (const [read, listed, readMarked, listedMarked, said] of cases) {
    const d = plateDiff(read, listed);
    t.equal(marks(d.read), readMarked, `${read} vs ${listed}: read`);
    t.equal(marks(d.listed), listedMarked, `${read} vs ${listed}: listed`);
    t.equal(describeDiff(read, listed), said);
  }
});
