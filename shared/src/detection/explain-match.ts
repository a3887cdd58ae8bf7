/**
 * A plate match explained in words, over the plates as people read them (docs/search.md
 * "How a match is shown"). Search and watchlists compare OCR-folded keys (ocr.ts: O is 0, I
 * and 7 are 1...), so two plates that visibly differ can be "the same" to them: WA7CH07 and
 * WA7CHO1 fold alike, and WA7CX01 is one folded edit from WA7CH07 though two characters
 * differ on the plate. The page shows every difference a person would see and says which
 * are OCR confusions ("7 and 1 are often confused") and which are real ("X for H").
 * Pure and free of imports beyond ocr.ts, so the dashboard's bundle can take it.
 */
import { areConfusable } from './ocr.ts';

const PLATE_CHAR = /[\p{Lu}\p{Lo}\p{Nd}]/u;

/** The letters and digits of a plate as read, uppercased (separators and spaces dropped). */
function chars(plate: string): string[] {
  return Array.from(plate.toLocaleUpperCase('en-US')).filter((ch) => PLATE_CHAR.test(ch));
}

/** One position where the query and the plate differ: confused by OCR, or another character. */
function pairWords(queryChar: string, plateChar: string): string {
  return areConfusable(queryChar, plateChar) ? `${queryChar} and ${plateChar} are often confused` : `${plateChar} for ${queryChar}`;
}

function differences(query: readonly string[], plate: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < query.length; i++) if (query[i] !== plate[i]) out.push(pairWords(query[i] as string, plate[i] as string));
  return out;
}

/**
 * `query`: what was searched (or listed), as typed; `plate`: the plate as read. Answers
 * "exact", the differences joined by "; ", or "N characters differ" when the two are more
 * than one character apart in length.
 */
export function explainPlateMatch(query: string, plate: string): string {
  const q = chars(query);
  const p = chars(plate);
  if (q.join('') === p.join('')) return 'exact';
  if (q.length === p.length) return differences(q, p).join('; ');
  if (Math.abs(q.length - p.length) !== 1) return `${Math.abs(q.length - p.length)} characters differ in length`;
  // One character more or less: drop it where the rest differs least, then say the rest.
  const longer = q.length > p.length ? q : p;
  const shorter = longer === q ? p : q;
  let best: { at: number; rest: string[] } | undefined;
  for (let at = 0; at < longer.length; at++) {
    const without = [...longer.slice(0, at), ...longer.slice(at + 1)];
    const rest = longer === q ? differences(without, shorter) : differences(shorter, without);
    if (!best || rest.length < best.rest.length) best = { at, rest };
  }
  const { at, rest } = best as { at: number; rest: string[] };
  const ch = longer[at] as string;
  const edit = longer === p ? `an extra ${ch} on the plate` : `${ch} missing from the plate`;
  return [edit, ...rest].join('; ');
}
