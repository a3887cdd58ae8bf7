/// <reference lib="dom" />
import { EVENTS_SEARCH_PATH } from '../../platform/http/paths.ts';
import { explainPlateMatch } from '@alpr/shared/detection/explain-match';
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, percent, say, show, when } from './dom.ts';
import { confidenceWords } from '@alpr/shared/detection/confidence';
import { imagePath } from './images.ts';
import { fillPurposeFields, loadPurposes, purposeOnly, purposeProblem, setPurposeParams } from './purpose-fields.ts';
// The wire shapes, written once by the server's presenter (type-only: erased from the bundle).
import type { SearchResult, SearchResultPage } from '../../search/present.ts';

/*
 * The search form over `GET /api/v1/events/search` (docs/search.md). The form's state is
 * the page's query string, so a search can be bookmarked, reloaded or sent back to with the
 * browser's Back button. The purpose (and case number, and note) travels to the detection
 * page too: viewing one is audited with a purpose as well.
 */
const form = byId<HTMLFormElement>('search-form');
const input = (id: string): HTMLInputElement => byId<HTMLInputElement>(id);
const PER_PAGE = 25;
const BOX = [
  ['lat-min', 'lat_min'],
  ['lat-max', 'lat_max'],
  ['lon-min', 'lon_min'],
  ['lon-max', 'lon_max'],
] as const;

function localInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

function queryFromForm(page: number): URLSearchParams {
  const q = new URLSearchParams();
  const plate = input('plate').value.trim();
  if (plate) q.set('plate', plate);
  const match = byId<HTMLSelectElement>('plate-match').value;
  if (match) q.set('plate_match', match);
  for (const [id, name] of [
    ['start', 'start_date'],
    ['end', 'end_date'],
  ] as const) {
    const v = input(id).value;
    if (v) q.set(name, new Date(v).toISOString());
  }
  const min = input('min-confidence').value;
  if (min) q.set('min_confidence', String(Number(min) / 100));
  const direction = byId<HTMLSelectElement>('direction').value;
  if (direction) q.set('direction', direction);
  const chosen = [...byId<HTMLSelectElement>('collectors').selectedOptions].map((o) => o.value);
  if (chosen.length > 0) q.set('collector_id', chosen.join(','));
  for (const [id, name] of BOX) {
    const v = input(id).value;
    if (v) q.set(name, v);
  }
  setPurposeParams(q);
  q.set('per_page', String(PER_PAGE));
  q.set('page', String(page));
  return q;
}

function fillForm(q: URLSearchParams): void {
  input('plate').value = q.get('plate') ?? '';
  // plate_fuzzy=true (older bookmarks) is plate_match=fuzzy.
  byId<HTMLSelectElement>('plate-match').value = q.get('plate_match') ?? (q.get('plate_fuzzy') === 'true' ? 'fuzzy' : '');
  input('start').value = localInput(q.get('start_date'));
  input('end').value = localInput(q.get('end_date'));
  const min = q.get('min_confidence');
  input('min-confidence').value = min ? String(Math.round(Number(min) * 100)) : '';
  byId<HTMLSelectElement>('direction').value = q.get('direction') ?? '';
  const chosen = new Set((q.get('collector_id') ?? '').split(',').filter(Boolean));
  for (const option of byId<HTMLSelectElement>('collectors').options) option.selected = chosen.has(option.value);
  for (const [id, name] of BOX) input(id).value = q.get(name) ?? '';
  fillPurposeFields(q);
}

const PLATE_CHAR = /[\p{Lu}\p{Lo}\p{Nd}]/u;
const MATCH_WORDS: Record<string, string> = {
  exact: 'exact',
  confusion: 'the same to OCR',
  substitution: 'one character differs',
  insertion: 'one extra character',
  deletion: 'one character missing',
};

/**
 * The plate with the character a one-edit match differs at marked. `position` counts the
 * plate's letters and digits (docs/search.md "One edit"), so separators in the stored text
 * are skipped; a missing character is marked as a gap before the position.
 */
function plateWithMark(plate: string, match: NonNullable<SearchResult['match']>): Array<Node | string> {
  if (match.position === null) return [plate];
  const chars = Array.from(plate);
  let seen = 0;
  const out: Array<Node | string> = [];
  let marked = false;
  for (const ch of chars) {
    const counts = PLATE_CHAR.test(ch.toLocaleUpperCase('en-US'));
    if (counts && seen === match.position && !marked) {
      marked = true;
      if (match.kind === 'deletion') out.push(el('mark', { class: 'gap', title: `missing ${match.query_char ?? ''}` }, '_'), ch);
      else out.push(el('mark', { title: match.query_char ? `query has ${match.query_char}` : 'extra character' }, ch));
    } else out.push(ch);
    if (counts) seen += 1;
  }
  if (!marked && match.kind === 'deletion') out.push(el('mark', { class: 'gap', title: `missing ${match.query_char ?? ''}` }, '_'));
  return out;
}

/**
 * How the plate matched, in words over the plates as read (shared/src/detection/explain-match.ts):
 * a fuzzy or one-edit search compares OCR-folded keys, so "100 % similar" or "one character
 * differs" alone hid differences a person can see. The percentage stays where it says
 * something (below 100 %); every difference is named.
 */
function matchWords(r: SearchResult, query: string | undefined): Array<Node | null> {
  if (query === undefined || (r.similarity === undefined && !r.match)) return [null];
  const words = explainPlateMatch(query, r.plate_number);
  const similar = r.similarity !== undefined && r.similarity < 0.999 ? `${percent(r.similarity)} similar: ` : '';
  return [el('span', { class: 'muted match' }, ` (${similar}${words === 'exact' ? 'exact' : words})`)];
}

function row(r: SearchResult, why: URLSearchParams, query?: string): HTMLTableRowElement {
  const crop = imagePath(r.images.crop_url);
  const link = el('a', { href: `/detections/${r.id}?${why.toString()}` }, ...(r.match ? plateWithMark(r.plate_number, r.match) : [r.plate_number]));
  return el(
    'tr',
    {},
    el('td', {}, crop ? el('img', { src: crop, alt: `Plate crop ${r.plate_number}`, width: '120', height: '40' }) : '—'),
    el(
      'td',
      {},
      link,
      ...(query !== undefined
        ? matchWords(r, query)
        : [
            r.similarity !== undefined ? el('span', { class: 'muted' }, ` (${percent(r.similarity)} similar)`) : null,
            r.match ? el('span', { class: 'muted match' }, ` (${MATCH_WORDS[r.match.kind] ?? r.match.kind})`) : null,
          ]),
    ),
    el('td', {}, when(r.captured_at)),
    el('td', {}, r.collector.name),
    el('td', {}, confidenceWords(r.confidence)),
    el('td', {}, r.direction),
  );
}

/** The plate searched for, when it is a plate and not a pattern: what a match is explained against. */
function plainQuery(q: URLSearchParams): string | undefined {
  const plate = q.get('plate') ?? '';
  return plate !== '' && !plate.includes('*') ? plate : undefined;
}

async function run(q: URLSearchParams): Promise<void> {
  say('');
  const summary = byId('summary');
  summary.textContent = 'Searching…';
  try {
    const page = await api<SearchResultPage>('GET', `${EVENTS_SEARCH_PATH}?${q.toString()}`);
    const why = purposeOnly(q);
    byId('results')
      .querySelector('tbody')
      ?.replaceChildren(...page.data.map((r) => row(r, why, plainQuery(q))));
    show(byId('results'), page.data.length > 0);
    const total = `${page.meta.total.toLocaleString()}${page.meta.total_is_lower_bound ? '+' : ''}`;
    summary.textContent = page.meta.total === 0 ? 'No detection matches.' : `${total} detections; page ${page.meta.page} of ${page.meta.total_pages}.`;
    byId('page-info').textContent = `Page ${page.meta.page} of ${page.meta.total_pages}`;
    byId<HTMLButtonElement>('prev').disabled = page.meta.page <= 1;
    byId<HTMLButtonElement>('next').disabled = page.meta.page >= page.meta.total_pages;
    show(byId('pager'), page.meta.total_pages > 1);
  } catch (err) {
    summary.textContent = '';
    if (err instanceof ApiError && err.status === 401) return signInAgain();
    say(err instanceof Error ? err.message : 'The search failed.');
  }
}

function go(page: number): void {
  const q = queryFromForm(page);
  history.pushState(null, '', `/search?${q.toString()}`);
  void run(q);
}

/** A page of the search the form describes, once the form says why (the pager reads the form too). */
function goChecked(page: number): void {
  const problem = purposeProblem();
  if (problem) return say(problem);
  go(page);
}
form.addEventListener('submit', (event) => {
  event.preventDefault();
  goChecked(1);
});
byId('prev').addEventListener('click', () => goChecked(Number(new URLSearchParams(location.search).get('page') ?? '1') - 1));
byId('next').addEventListener('click', () => goChecked(Number(new URLSearchParams(location.search).get('page') ?? '1') + 1));
window.addEventListener('popstate', () => {
  const q = new URLSearchParams(location.search);
  fillForm(q);
  if (q.get('purpose')) void run(q);
});

const initial = new URLSearchParams(location.search);
// The purposes first: the select can only show a bookmarked purpose once it is an option.
// A page opened without a query keeps its form as it is: whatever the user typed while the
// purposes were loading stays (filling from an empty query wiped it, a race CI caught).
loadPurposes()
  .then(() => {
    if (initial.size === 0) return;
    fillForm(initial);
    if (initial.get('purpose')) void run(initial);
  })
  .catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 401) return signInAgain();
    say(err instanceof Error ? err.message : 'Could not load the purposes.');
  });
