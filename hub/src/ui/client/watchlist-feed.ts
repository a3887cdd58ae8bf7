/// <reference lib="dom" />
import { watchlistPartPath, watchlistPath } from '../../platform/http/paths.ts';
import { api, ApiError } from './api.ts';
import { byId, say, show, when } from './dom.ts';
// The wire shapes, written once by the server's presenters (type-only: erased from the bundle).
import type { presentFeed } from '../../watchlists/feeds/feeds.ts';
import type { presentWatchlist } from '../../watchlists/present.ts';

/*
 * The selected watchlist's feed and retro-hunt days (docs/watchlists.md "Feeds", "Retro-hunt"):
 * what it follows and what the last read did; for operators and admins, follow or change the
 * feed, fetch now, stop following, and the days searched for plates added by hand. The hub
 * reads a feed on its schedule's next minute, so after a change the section asks again every
 * 5 s until the read is recorded (at most 3 minutes: a minute's tick plus a slow feed server).
 */
type Feed = ReturnType<typeof presentFeed>;
type Watchlist = ReturnType<typeof presentWatchlist>;

const POLL_MS = 5_000;
const POLL_TRIES = 36;

export interface FeedSectionHooks {
  /** A read changed the list: show its entries again. */
  changed(): Promise<void>;
  fail(err: unknown): void;
}

let shown: string | undefined;
let polling = 0;
/**
 * What this page itself last did to each list's feed: the list summaries that say whether a
 * list follows one are reloaded after a change, and a list opened before that reload lands
 * would otherwise be asked for a feed it no longer has (a 404 in the console).
 */
const followsByPage = new Map<string, boolean>();

/**
 * The page's feed requests go one at a time, in the order they were asked for. A list shown
 * again after a read (the entries refresh) asks for its feed; if the user stops following the
 * feed meanwhile, that read could reach the hub after the removal and be answered 404 (a failed
 * request in the console). In turn, and with `followsByPage` updated inside the removal's own
 * turn, a read queued behind a removal sees that the list follows nothing and is not sent.
 */
let feedRequests: Promise<unknown> = Promise.resolve();
function inTurn<T>(request: () => Promise<T>): Promise<T> {
  const next = feedRequests.then(request, request);
  feedRequests = next.catch(() => undefined);
  return next;
}

function resultText(f: Feed): string {
  if (f.last_status === 'ok') return 'ok';
  if (f.last_status === 'not_modified') return 'not modified (the server said the file is unchanged)';
  if (f.last_status === 'error') return `error: ${f.last_error ?? 'unknown'}`;
  return 'not read yet';
}

function changesText(f: Feed): string {
  const c = f.last_changes as { added?: number; removed?: number; changed?: number; historical_hits?: number } | null;
  if (!c) return '—';
  return `${c.added ?? 0} added, ${c.removed ?? 0} removed, ${c.changed ?? 0} changed, ${c.historical_hits ?? 0} historical hits (at ${when(f.last_success_at)})`;
}

/** Shows `feed`; `fill` also puts its setting in the form (not on a poll: the user may be typing). */
function render(feed: Feed | null, fill = false): void {
  show(byId('feed-none'), feed === null);
  show(byId('feed-facts'), feed !== null);
  if (feed) {
    byId('feed-url').textContent = feed.url;
    byId('feed-format').textContent = feed.format.toUpperCase();
    byId('feed-schedule').textContent = feed.schedule;
    byId('feed-retro').textContent = feed.retro_hunt_days === 0 ? 'off' : `reads of the last ${feed.retro_hunt_days} days`;
    byId('feed-checked').textContent = feed.last_checked_at ? when(feed.last_checked_at) : 'due within a minute';
    const result = byId('feed-result');
    result.textContent = resultText(feed);
    result.className = feed.last_status === 'error' ? 'bad' : feed.last_status ? 'ok' : '';
    byId('feed-changes').textContent = changesText(feed);
  }
  const form = document.getElementById('feed-form');
  if (!form) return;
  if (fill && !feed) (form as HTMLFormElement).reset();
  if (fill && feed) {
    byId<HTMLInputElement>('feed-url-input').value = feed.url;
    byId<HTMLSelectElement>('feed-format-input').value = feed.format;
    byId<HTMLInputElement>('feed-schedule-input').value = feed.schedule;
    byId<HTMLInputElement>('feed-retro-input').value = String(feed.retro_hunt_days);
  }
  byId('feed-save').textContent = feed ? 'Save feed' : 'Follow this feed';
  show(byId('feed-update'), feed !== null);
  show(byId('feed-remove'), feed !== null);
}

/** The list's feed, or null when it follows none; `follows` is what the page knows when its turn comes. */
function loadFeed(listId: string, follows: () => boolean | undefined = () => followsByPage.get(listId)): Promise<Feed | null> {
  return inTurn(async () => {
    if (follows() === false) return null;
    try {
      return await api<Feed>('GET', watchlistPartPath(listId, 'feed'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  });
}

/** Asks again until the hub has recorded a read (or the tries run out), then shows it. */
function pollUntilRead(listId: string, hooks: FeedSectionHooks): void {
  const mine = ++polling;
  let tries = 0;
  const again = (): void => {
    if (mine !== polling || shown !== listId || ++tries > POLL_TRIES) return;
    loadFeed(listId)
      .then(async (feed) => {
        if (mine !== polling || shown !== listId) return;
        if (feed && feed.last_checked_at) {
          render(feed);
          say(`Feed read: ${resultText(feed)}.`, feed.last_status === 'error' ? 'error' : 'info');
          await hooks.changed();
          return;
        }
        setTimeout(again, POLL_MS);
      })
      .catch(hooks.fail);
  };
  setTimeout(again, POLL_MS);
}

/** Shows the section for `list` (called whenever a list is opened or shown again). */
export async function showFeedSection(list: Watchlist): Promise<void> {
  // Another list: forget the last one's poll and fill the forms with this one's settings.
  // The same list shown again (after any change) leaves the forms as the user has them.
  const another = shown !== list.id;
  if (another) polling++;
  shown = list.id;
  const days = list.retro_hunt_days;
  byId('hunt-note').textContent =
    days === 0
      ? 'Plates added by hand are not searched for in past reads.'
      : `A plate added by hand is searched for in the reads of the last ${days} days; each match is raised as a historical hit.`;
  const input = document.getElementById('list-retro') as HTMLInputElement | null;
  if (input && another) input.value = String(days);
  // The list says whether it follows a feed: one that does not is not asked for (a 404 in the console).
  render(await loadFeed(list.id, () => followsByPage.get(list.id) ?? list.follows_feed), another);
}

/** Wires the forms once; `current` names the selected list. */
export function wireFeedSection(current: () => Watchlist | undefined, hooks: FeedSectionHooks): void {
  const listId = (): string | undefined => current()?.id;
  document.getElementById('feed-form')?.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = listId();
    if (!id) return;
    const body = {
      url: byId<HTMLInputElement>('feed-url-input').value.trim(),
      format: byId<HTMLSelectElement>('feed-format-input').value,
      schedule: byId<HTMLInputElement>('feed-schedule-input').value.trim(),
      retro_hunt_days: Number(byId<HTMLInputElement>('feed-retro-input').value),
    };
    inTurn(async () => {
      const feed = await api<Feed>('PUT', watchlistPartPath(id, 'feed'), body);
      followsByPage.set(id, true);
      return feed;
    })
      .then((feed) => {
        render(feed, true);
        say('Feed saved. The hub reads it on its schedule.', 'info');
        if (!feed.last_checked_at) pollUntilRead(id, hooks);
      })
      .catch(hooks.fail);
  });
  document.getElementById('feed-update')?.addEventListener('click', () => {
    const id = listId();
    if (!id) return;
    inTurn(() => api<Feed>('POST', watchlistPartPath(id, 'feed/update'), {}))
      .then((feed) => {
        render(feed);
        say('The hub reads the feed within a minute.', 'info');
        pollUntilRead(id, hooks);
      })
      .catch(hooks.fail);
  });
  document.getElementById('feed-remove')?.addEventListener('click', () => {
    const id = listId();
    if (!id) return;
    inTurn(async () => {
      await api('DELETE', watchlistPartPath(id, 'feed'));
      followsByPage.set(id, false);
    })
      .then(() => {
        polling++;
        render(null, true);
        say('The list no longer follows a feed; its entries stay.', 'info');
        return hooks.changed();
      })
      .catch(hooks.fail);
  });
  document.getElementById('hunt-form')?.addEventListener('submit', (event) => {
    event.preventDefault();
    const id = listId();
    if (!id) return;
    const days = Number(byId<HTMLInputElement>('list-retro').value);
    api('PATCH', watchlistPath(id), { retro_hunt_days: days })
      .then(() => {
        say(
          days === 0 ? 'Plates added by hand are no longer searched for in past reads.' : `Plates added by hand are searched for in the last ${days} days.`,
          'info',
        );
        return hooks.changed();
      })
      .catch(hooks.fail);
  });
}
