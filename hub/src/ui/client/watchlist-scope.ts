/// <reference lib="dom" />
import { watchlistPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, say } from './dom.ts';
import type { presentWatchlist } from '../../watchlists/present.ts';

/*
 * The selected list's scope (docs/watchlists.md "Scopes"): the words the hub writes for it,
 * and the form. The form edits mode, collectors, direction, days, hours and zone; sites and
 * cameras set through the API are kept as they are.
 */
type Watchlist = ReturnType<typeof presentWatchlist>;
type Scope = NonNullable<Watchlist['scope']>;

const DAY_VALUES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const days = (): HTMLInputElement[] => [...document.querySelectorAll<HTMLInputElement>('input[name="scope-day"]')];

export function showScopeSection(w: Watchlist): void {
  byId('scope-words').textContent = w.scope_words;
  const form = document.getElementById('scope-form');
  if (!form) return;
  const s = w.scope ?? {};
  byId<HTMLSelectElement>('scope-mode').value = w.mode;
  byId<HTMLSelectElement>('scope-mode').disabled = w.kind === 'ignore';
  byId<HTMLTextAreaElement>('scope-places').value = (s.collectors ?? []).join('\n');
  byId<HTMLSelectElement>('scope-direction').value = s.direction ?? 'either';
  for (const box of days()) box.checked = (s.days ?? []).some((d) => d === box.value) && (s.days ?? []).length < 7;
  byId<HTMLInputElement>('scope-from').value = s.hours?.from ?? '';
  byId<HTMLInputElement>('scope-to').value = s.hours?.to ?? '';
  byId<HTMLInputElement>('scope-zone').value = s.time_zone ?? '';
}

/** The scope the form says, over the list's own (its sites and cameras kept); null when it narrows nothing. */
function scopeFromForm(before: Scope | null): Scope | null {
  const collectors = byId<HTMLTextAreaElement>('scope-places')
    .value.split(/\s+/)
    .map((x) => x.trim())
    .filter(Boolean);
  const direction = byId<HTMLSelectElement>('scope-direction').value as Scope['direction'];
  const ticked = days()
    .filter((b) => b.checked)
    .map((b) => b.value as (typeof DAY_VALUES)[number]);
  const from = byId<HTMLInputElement>('scope-from').value;
  const to = byId<HTMLInputElement>('scope-to').value;
  const zone = byId<HTMLInputElement>('scope-zone').value.trim();
  const scope: Scope = {
    ...(before?.sites?.length ? { sites: before.sites } : {}),
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
