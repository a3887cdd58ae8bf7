/// <reference lib="dom" />
import { WATCHLISTS_PATH, watchlistEntryPath, watchlistPartPath } from '../../platform/http/paths.ts';
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { showFeedSection, wireFeedSection } from './watchlist-feed.ts';
import { showScopeSection, wireScopeSection } from './watchlist-scope.ts';
import { showRecipientsSection, wireRecipientsSection } from './watchlist-recipients.ts';
import { forPeople } from './words.ts';
// The wire shapes, written once by the server's presenters (type-only: erased from the bundle).
import type { presentEntry, presentWatchlist } from '../../watchlists/present.ts';

/*
 * Watchlists (docs/watchlists.md): lists with the caller's subscription, a list's entries,
 * add and remove, CSV import with per-line errors, CSV export, and the list's feed and
 * retro-hunt days (watchlist-feed.ts), its scope (watchlist-scope.ts) and recipients
 * (watchlist-recipients.ts). An add or import says how many historical hits the
 * retro-hunt raised.
 */
/** The list and create answers carry the entry count and subscription (watchlists/present.ts). */
type Watchlist = Required<ReturnType<typeof presentWatchlist>>;
type Entry = ReturnType<typeof presentEntry>;

const canWrite = byId('lists').dataset['canWrite'] === 'true';
let current: Watchlist | undefined;

const fail = (err: unknown): void => {
  if (err instanceof ApiError && err.status === 401) return signInAgain();
  say(err instanceof Error ? err.message : 'The hub refused.');
};

function listRow(w: Watchlist): HTMLTableRowElement {
  const open = el('button', { type: 'button', class: 'link' }, w.name);
  open.addEventListener('click', () => void openList(w));
  const toggle = el(
    'button',
    { type: 'button', class: 'secondary', 'aria-pressed': w.subscribed ? 'true' : 'false' },
    w.subscribed ? 'Subscribed' : 'Subscribe',
  );
  toggle.setAttribute('aria-label', `${w.subscribed ? 'Subscribed' : 'Subscribe'} to ${w.name}`);
  toggle.addEventListener('click', () => {
    api(w.subscribed ? 'DELETE' : 'POST', watchlistPartPath(w.id, 'subscription'), w.subscribed ? undefined : {})
      .then(() => {
        say(w.subscribed ? `You no longer receive alerts of ${w.name}.` : `You now receive alerts of ${w.name}.`, 'info');
        return refresh();
      })
      .catch(fail);
  });
  return el(
    'tr',
    { 'data-list': w.id },
    el('td', {}, open),
    el(
      'td',
      {},
      w.priority,
      w.forgive_one_misread ? el('span', { class: 'muted' }, ' (forgives one misread)') : null,
      w.verification_required ? null : el('span', { class: 'muted' }, ' (no verification)'),
    ),
    el('td', {}, String(w.entry_count)),
    el('td', {}, w.follows_feed ? 'follows a feed' : '—'),
    el('td', {}, w.is_active ? 'yes' : 'no'),
    el('td', {}, toggle),
  );
}

function entryRow(e: Entry): HTMLTableRowElement {
  const cells = [el('td', { class: 'plate' }, e.plate_number), el('td', {}, e.notes ?? ''), el('td', {}, when(e.added_at))];
  if (canWrite && current) {
    const list = current;
    const remove = el('button', { type: 'button', class: 'secondary' }, 'Remove');
    remove.setAttribute('aria-label', `Remove ${e.plate_number}`);
    remove.addEventListener('click', () => {
      api('DELETE', watchlistEntryPath(list.id, e.id))
        .then(() => {
          say(`${e.plate_number} removed from ${list.name}.`, 'info');
          return refresh();
        })
        .catch(fail);
    });
    cells.push(el('td', {}, remove));
  } else cells.push(el('td', {}, ''));
  return el('tr', {}, ...cells);
}

async function openList(w: Watchlist): Promise<void> {
  current = w;
  const page = await api<{ data: Entry[] }>('GET', `${watchlistPartPath(w.id, 'entries')}?limit=1000`);
  byId('entries-title').textContent = `Entries of ${w.name}`;
  byId('entries')
    .querySelector('tbody')
    ?.replaceChildren(...page.data.map(entryRow));
  byId<HTMLAnchorElement>('export').href = watchlistPartPath(w.id, 'export');
  showScopeSection(w);
  await showRecipientsSection(w);
  await showFeedSection(w);
  // Shown once every part is filled: shown first, it showed the previous list's recipients and
  // feed, or an empty retro-hunt note, for as long as their requests took (seconds on a busy hub).
  show(byId('entries-section'), true);
}

/**
 * What was stored, said when it is not what was typed: a plate keeps its letters and digits,
 * in capitals (`x!` is stored as X), and the list matches reads on that.
 */
function addedText(typed: string, stored: string): string {
  if (typed === stored) return `Plate ${stored} added.`;
  return `Plate ${stored} added (you typed "${typed}": a plate is stored as its letters and digits, in capitals).`;
}

/** "…, and 2 historical hits in the last 7 days' reads" when the retro-hunt looked. */
function huntText(hunt: { days: number; hits: number } | undefined): string {
  if (!hunt || hunt.days === 0) return '';
  return ` The last ${hunt.days} days of reads were searched: ${hunt.hits} historical ${hunt.hits === 1 ? 'hit' : 'hits'} raised.`;
}

async function refresh(): Promise<void> {
  const lists = await api<{ data: Watchlist[] }>('GET', WATCHLISTS_PATH);
  byId('lists')
    .querySelector('tbody')
    ?.replaceChildren(...lists.data.map(listRow));
  const again = lists.data.find((l) => l.id === current?.id);
  if (again) await openList(again);
}

document.getElementById('create-list')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const body = {
    name: byId<HTMLInputElement>('list-name').value.trim(),
    priority: byId<HTMLSelectElement>('list-priority').value,
    ocr_tolerant: byId<HTMLInputElement>('list-ocr').checked,
    forgive_one_misread: byId<HTMLInputElement>('list-forgive').checked,
    verification_required: byId<HTMLInputElement>('list-verify').checked,
  };
  api<Watchlist>('POST', WATCHLISTS_PATH, body)
    .then((created) => {
      say(`Watchlist ${created.name} created.`, 'info');
      (event.target as HTMLFormElement).reset();
      current = { ...created, entry_count: 0, subscribed: false, follows_feed: false };
      return refresh();
    })
    .catch(fail);
});

document.getElementById('add-entry')?.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!current) return;
  const list = current;
  const notes = byId<HTMLInputElement>('entry-notes').value.trim();
  const plate = byId<HTMLInputElement>('entry-plate').value.trim();
  api<Entry & { retro_hunt?: { days: number; hits: number } }>('POST', watchlistPartPath(list.id, 'entries'), {
    plate,
    ...(notes ? { notes } : {}),
  })
    .then((added) => {
      (event.target as HTMLFormElement).reset();
      say(`${addedText(plate, added.plate_number)}${huntText(added.retro_hunt)}`, 'info');
      return refresh();
    })
    .catch(fail);
});

document.getElementById('import')?.addEventListener('submit', (event) => {
  event.preventDefault();
  const file = byId<HTMLInputElement>('csv').files?.[0];
  if (!file || !current) return;
  const list = current;
  // The import takes text/csv, a type any page can post: it needs the CSRF token (docs/auth.md).
  void (async () => {
    const { csrf_token } = await api<{ csrf_token: string }>('GET', '/auth/csrf');
    const res = await fetch(watchlistPartPath(list.id, 'import'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'text/csv', 'x-csrf-token': csrf_token, accept: 'application/json' },
      body: await file.text(),
    });
    const result = (await res.json()) as {
      added?: number;
      already_listed?: number[];
      errors?: Array<{ line: number; error: string }>;
      retro_hunt?: { days: number; hits: number };
      error?: { message: string };
    };
    if (!res.ok) return say(result.error ? forPeople(result.error.message) : `The import was refused (${res.status}).`);
    const errors = result.errors ?? [];
    byId('import-errors').replaceChildren(...errors.map((e) => el('li', {}, `line ${e.line}: ${e.error}`)));
    say(
      `${result.added ?? 0} added, ${(result.already_listed ?? []).length} already listed, ${errors.length} lines with errors${errors.length ? ' (listed below the form)' : ''}.${huntText(result.retro_hunt)}`,
      errors.length ? 'error' : 'info',
    );
    await refresh();
  })().catch(fail);
});

wireFeedSection(() => current, { changed: () => refresh(), fail });
wireScopeSection(() => current, { changed: () => refresh(), fail });
wireRecipientsSection(() => current, { fail });

refresh().catch(fail);
