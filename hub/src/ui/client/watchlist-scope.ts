/// <reference lib="dom" />
import { watchlistPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, say } from './dom.ts';
import type { presentWatchlist } from '../../watchlists/present.ts';

/*
 * The selected list's scope (docs/watchlists.md "Scopes"): the words the hub writes for it,
 * and the form. The form edits mode, sites, collectors, direction, days, hours and zone;
 * cameras set through the API are kept as they are, and so are places the scope names that
 * this user has no box for (another operator's sites): saving never drops what one cannot see.
 */
type Watchlist = ReturnType<typeof presentWatchlist>;
type Scope = NonNullable<Watchlist['scope']>;

const DAY_VALUES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const days = (): HTMLInputElement[] => [...document.querySelectorAll<HTMLInputElement>('input[name="scope-day"]')];
const boxes = (name: 'scope-site' | 'scope-collector'): HTMLInputElement[] => [...document.querySelectorAll<HTMLInputElement>(`input[name="${name}"]`)];

/** The ticked places, and the scope's places this page has no box for, kept. */
function placesFromForm(name: 'scope-site' | 'scope-collector', before: readonly string[] | undefined): string[] {
  const shown = new Set(boxes(name).map((b) => b.value));
  const unseen = (before ?? []).filter((id) => !shown.has(id));
  return [
    ...boxes(name)
      .filter((b) => b.checked)
      .map((b) => b.value),
    ...unseen,
  ];
}

export function showScopeSection(w: Watchlist): void {
  byId('scope-words').textContent = w.scope_words;
  const form = document.getElementById('scope-form');
  if (!form) return;
  const s = w.scope ?? {};
  byId<HTMLSelectElement>('scope-mode').value = w.mode;
  byId<HTMLSelectElement>('scope-mode').disabled = w.kind === 'ignore';
  for (const box of boxes('scope-site')) box.checked = (s.sites ?? []).includes(box.value);
  for (const box of boxes('scope-collector')) box.checked = (s.collectors ?? []).includes(box.value);
  byId<HTMLSelectElement>('scope-direction').value = s.direction ?? 'either';
  for (const box of days()) box.checked = (s.days ?? []).some((d) => d === box.value) && (s.days ?? []).length < 7;
  byId<HTMLInputElement>('scope-from').value = s.hours?.from ?? '';
  byId<HTMLInputElement>('scope-to').value = s.hours?.to ?? '';
  byId<HTMLInputElement>('scope-zone').value = s.time_zone ?? '';
}

/** The scope the form says, over the list's own (its cameras and unseen places kept); null when it narrows nothing. */
function scopeFromForm(before: Scope | null): Scope | null {
  const sites = placesFromForm('scope-site', before?.sites);
  const collectors = placesFromForm('scope-collector', before?.collectors);
  const direction = byId<HTMLSelectElement>('scope-direction').value as Scope['direction'];
  const ticked = days()
    .filter((b) => b.checked)
    .map((b) => b.value as (typeof DAY_VALUES)[number]);
  const from = byId<HTMLInputElement>('scope-from').value;
  const to = byId<HTMLInputElement>('scope-to').value;
  const zone = byId<HTMLInputElement>('scope-zone').value.trim();
  const scope: Scope = {
    ...(sites.length ? { sites } : {}),
    ...(before?.cameras?.length ? { cameras: before.cameras } : {}),
    ...(collectors.length ? { collectors } : {}),
    ...(direction && direction !== 'either' ? { direction } : {}),
    ...(ticked.length > 0 && ticked.length < 7 ? { days: ticked } : {}),
    ...(from || to ? { hours: { from: from || '00:00', to: to || '00:00' } } : {}),
  };
  if (scope.days || scope.hours || zone) scope.time_zone = zone || 'UTC';
  return Object.keys(scope).length > 0 ? scope : null;
}

export function wireScopeSection(current: () => Watchlist | undefined, on: { changed: () => Promise<void>; fail: (err: unknown) => void }): void {
  document.getElementById('scope-form')?.addEventListener('submit', (event) => {
    event.preventDefault();
    const list = current();
    if (!list) return;
    const body = {
      scope: scopeFromForm(list.scope),
      ...(list.kind === 'ignore' ? {} : { mode: byId<HTMLSelectElement>('scope-mode').value }),
    };
    api<Watchlist>('PATCH', watchlistPath(list.id), body)
      .then((saved) => {
        say(`Scope of ${saved.name} saved: it alerts ${saved.scope_words}.`, 'info');
        return on.changed();
      })
      .catch(on.fail);
  });
}
