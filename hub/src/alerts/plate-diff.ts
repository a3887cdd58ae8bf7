/**
 * Which characters of a read differ from the plate as listed, for the alert's side-by-side
 * view (docs/alerts.md "Verification"). Pure, and small enough for the dashboard's bundle.
 *
 * An edit-distance alignment (plates are at most 32 characters: a 33 x 33 table) marks each
 * character of either plate that has no equal partner: a substitution marks one character
 * on each side, an insertion or deletion one on one side. An exact match by the OCR form
 * (O and 0 fold together, docs/normalization.md) still marks the O against the 0, which is
 * what the operator must look at in the crop.
 */
export interface DiffChar {
  char: string;
  differs: boolean;
}

export function plateDiff(read: string, listed: string): { read: DiffChar[]; listed: DiffChar[] } {
  const a = [...read];
  const b = [...listed];
  // cost[i][j]: edits between a[i..] and b[j..]; filled from the end so the walk goes forward.
  const cost = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length; i >= 0; i--) {
    for (let j = b.length; j >= 0; j--) {
      const row = cost[i] as number[];
      if (i === a.length) row[j] = b.length - j;
      else if (j === b.length) row[j] = a.length - i;
      else {
        const next = cost[i + 1] as number[];
        row[j] = Math.min((next[j + 1] as number) + (a[i] === b[j] ? 0 : 1), (next[j] as number) + 1, (row[j + 1] as number) + 1);
      }
    }
  }
  const outA: DiffChar[] = [];
  const outB: DiffChar[] = [];
  let i = 0;
  let j = 0;
  const at = (x: number, y: number): number => (cost[x] as number[])[y] as number;
  while (i < a.length || j < b.length) {
    const here = at(i, j);
    if (i < a.length && j < b.length && at(i + 1, j + 1) + (a[i] === b[j] ? 0 : 1) === here) {
      outA.push({ char: a[i] as string, differs: a[i] !== b[j] });
      outB.push({ char: b[j] as string, differs: a[i] !== b[j] });
      i++;
      j++;
    } else if (i < a.length && at(i + 1, j) + 1 === here) {
      outA.push({ char: a[i] as string, differs: true });
      i++;
    } else {
      outB.push({ char: b[j] as string, differs: true });
      j++;
    }
  }
  return { read: outA, listed: outB };
}

/** The differing characters as text, e.g. "8 read where B is listed" (for screen readers and the bot). */
export function describeDiff(read: string, listed: string): string {
  const { read: r, listed: l } = plateDiff(read, listed);
  const got = r.filter((c) => c.differs).map((c) => c.char);
  const want = l.filter((c) => c.differs).map((c) => c.char);
  if (got.length === 0 && want.length === 0) return 'same characters';
  if (want.length === 0) return `${got.join('')} read but not listed`;
  if (got.length === 0) return `${want.join('')} listed but not read`;
  return `${got.join('')} read where ${want.join('')} is listed`;
}
