/// <reference lib="dom" />
import { ADMIN_ALERT_CHECKS_FAILED_PATH, ADMIN_ALERT_CHECKS_REQUEUE_FAILED_PATH, adminAlertCheckRequeuePath } from '../../platform/http/paths.ts';
import { api, ApiError, signInAgain } from './api.ts';
import { reconnectDelayMs } from './backoff.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
import { healthAlerts, MAX_PAGE, type HealthAlertRecord } from './health-alerts.ts';
// The wire shapes, written once by the modules that produce them (type-only: erased from the bundle).
import type { FailedAlertCheck } from '../../alerts/failed-checks.ts';
import type { Envelope } from '../../live/protocol.ts';
import type { SearchKeysHealth } from '../../health/search-keys.ts';

/*
 * The health page (docs/dashboard.md "Health"): failed alert checks with requeue, one or
 * all (docs/alerts.md "Failed checks"); health alerts, open first, then the closed ones 50 at
 * a time. The lists follow the live channel: any news on `collectors:status` (a collector's
 * status, a health alert opened or closed) reloads the health alerts.
 */
const HISTORY_PAGE = 50;
let olderThan: string | null = null;

function collectorId(): string | undefined {
  return byId<HTMLSelectElement>('collector').value || undefined;
}

async function refreshFailed(): Promise<void> {
  const list = await api<{ data: FailedAlertCheck[]; total: number }>('GET', ADMIN_ALERT_CHECKS_FAILED_PATH);
  byId('failed-count').textContent =
    list.total === 0
      ? 'None: every alert check has run.'
      : `${list.total} failed${list.total > list.data.length ? `; the newest ${list.data.length} shown` : ''}. Each may be a watchlist hit nobody saw.`;
  show(byId('requeue-all'), list.total > 0);
  byId('failed')
    .querySelector('tbody')
    ?.replaceChildren(...list.data.map(failedRow));
}

function failedRow(f: FailedAlertCheck): HTMLTableRowElement {
  const requeue = el('button', { type: 'button', class: 'secondary', 'aria-label': `Requeue the check of plate ${f.plate_number}` }, 'Requeue');
  requeue.addEventListener('click', () => {
    requeue.disabled = true;
    api('POST', adminAlertCheckRequeuePath(f.id), {})
      .then(() => {
        say(`The check of ${f.plate_number} is back in the queue: its alert, if any, is raised within seconds.`, 'info');
        return refreshFailed();
      })
      .catch((err: unknown) => {
        requeue.disabled = false;
        failed(err);
      });
  });
  return el(
    'tr',
    { 'data-check': f.id },
    el('td', {}, el('a', { class: 'plate', href: `/detections/${f.detection_id}` }, f.plate_number)),
    el('td', {}, f.site_name),
    el('td', {}, when(f.captured_at)),
    el('td', {}, String(f.attempts)),
    el('td', {}, f.last_error ?? '—'),
    el('td', {}, when(f.failed_at)),
    el('td', { class: 'actions' }, requeue),
  );
}

function alertRow(a: HealthAlertRecord): HTMLTableRowElement {
  return el(
    'tr',
    { 'data-health-alert': a.id, 'data-kind': a.kind },
    el('td', {}, a.message),
    el('td', {}, a.collector_name),
    el('td', {}, a.camera_name ?? '—'),
    el('td', {}, when(a.opened_at)),
    a.closed_at === null ? null : el('td', {}, when(a.closed_at)),
  );
}

/** Open ones, and the first page of history; a 404 means a hub without health alerts. */
async function refreshAlerts(): Promise<void> {
  const who = collectorId();
  try {
    const [open, closed] = await Promise.all([
      healthAlerts({ state: 'open', limit: MAX_PAGE, ...(who ? { collectorId: who } : {}) }),
      healthAlerts({ state: 'closed', limit: HISTORY_PAGE, ...(who ? { collectorId: who } : {}) }),
    ]);
    byId('open-alerts')
      .querySelector('tbody')
      ?.replaceChildren(...(open.items.length ? open.items.map(alertRow) : [emptyRow(4, 'None open.')]));
    byId('closed-alerts')
      .querySelector('tbody')
      ?.replaceChildren(...(closed.items.length ? closed.items.map(alertRow) : [emptyRow(5, 'None yet.')]));
    olderThan = closed.next_before;
    show(byId('older'), olderThan !== null);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      byId('open-alerts').querySelector('tbody')?.replaceChildren(emptyRow(4, 'This hub does not report health alerts.'));
      return;
    }
    throw err;
  }
}

function emptyRow(columns: number, text: string): HTMLTableRowElement {
  return el('tr', {}, el('td', { colspan: String(columns), class: 'muted' }, text));
}

async function older(): Promise<void> {
  if (olderThan === null) return;
  const who = collectorId();
  const page = await healthAlerts({ state: 'closed', limit: HISTORY_PAGE, before: olderThan, ...(who ? { collectorId: who } : {}) });
  byId('closed-alerts')
    .querySelector('tbody')
    ?.append(...page.items.map(alertRow));
  olderThan = page.next_before;
  show(byId('older'), olderThan !== null);
}

/** Many messages in a burst (a site going down with its cameras) make one reload. */
let reloadTimer: ReturnType<typeof setTimeout> | undefined;
function reloadSoon(): void {
  if (reloadTimer !== undefined) return;
  reloadTimer = setTimeout(() => {
    reloadTimer = undefined;
    refreshAlerts().catch(failed);
  }, 250);
}

const HOUSEKEEPING = new Set(['connected', 'ping', 'subscribed', 'unsubscribed', 'error', 'detection', 'alert']);
let attempt = 0;
let current: WebSocket | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

function setLive(text: string, state: 'live' | 'down' | 'connecting'): void {
  const line = byId('health-live');
  line.textContent = text;
  line.dataset['state'] = state;
}

/** `collectors:status` is on by default for admins (docs/live.md "Feeds"): nothing to subscribe. */
function connect(): void {
  retryTimer = undefined;
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?v=1`);
  current = socket;
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as Envelope;
    const type: string = message.type;
    if (type === 'connected') {
      // Whatever changed while away is in the lists read now.
      if (attempt > 0) reloadSoon();
      attempt = 0;
      setLive('Live: health alerts update as they open and close.', 'live');
    } else if (type === 'ping') socket.send(JSON.stringify({ type: 'pong', payload: {} }));
    else if (type === 'error' && (message.payload['code'] === 'AUTH_REQUIRED' || message.payload['code'] === 'AUTH_FAILED')) signInAgain();
    else if (!HOUSEKEEPING.has(type)) reloadSoon();
  });
  socket.addEventListener('close', () => {
    if (current !== socket) return;
    current = undefined;
    const delay = reconnectDelayMs(attempt, Math.random());
    attempt += 1;
    setLive(`Connection lost: reconnecting in ${Math.ceil(delay / 1000)} s…`, 'down');
    retryTimer = setTimeout(connect, delay);
  });
}

/** A phone waking up reconnects at once rather than waiting out its backoff (as the live page does). */
function reconnectNow(): void {
  if (document.visibilityState !== 'visible' || current?.readyState === WebSocket.OPEN) return;
  const stale = current;
  current = undefined;
  stale?.close();
  if (retryTimer !== undefined) clearTimeout(retryTimer);
  attempt = 1;
  connect();
}
document.addEventListener('visibilitychange', reconnectNow);
window.addEventListener('online', reconnectNow);

byId('requeue-all').addEventListener('click', () => {
  api<{ requeued: number }>('POST', ADMIN_ALERT_CHECKS_REQUEUE_FAILED_PATH, {})
    .then((r) => {
      say(`${r.requeued} ${r.requeued === 1 ? 'check is' : 'checks are'} back in the queue: their alerts, if any, are raised within seconds.`, 'info');
      return refreshFailed();
    })
    .catch(failed);
});
byId('collector').addEventListener('change', () => {
  const who = collectorId();
  // The filter is in the address, so the collectors page's links and Back work.
  history.replaceState(null, '', who ? `?collector_id=${encodeURIComponent(who)}` : location.pathname);
  refreshAlerts().catch(failed);
});
byId('older').addEventListener('click', () => void older().catch(failed));

/**
 * The search key builder's lag, from /healthz (health/search-keys.ts; it reads the lag at most
 * every 5 s), every 15 s while the page is open. Searches stay exact while it lags, so this
 * says how far behind, and warns past the documented minute.
 */
const SEARCH_KEYS_EVERY_MS = 15_000;
async function refreshSearchKeys(): Promise<void> {
  const target = byId('search-keys');
  const res = await fetch('/healthz', { headers: { accept: 'application/json' } });
  const body = (await res.json()) as { search_keys?: SearchKeysHealth };
  const keys = body.search_keys;
  if (!keys || 'error' in keys) {
    target.textContent = 'The search keys’ lag could not be read.';
    return;
  }
  target.textContent =
    keys.lag_reads === 0
      ? 'Up to date: every stored read has its search keys.'
      : `${keys.lag_reads.toLocaleString()} reads wait for their search keys; the oldest for ${keys.lag_seconds} s. Searches still find them.` +
        (keys.behind ? ' The key builder is behind (over a minute): check that a hub process is running and its log.' : '');
  target.classList.toggle('message', keys.behind);
}
const refreshSearchKeysQuietly = () => void refreshSearchKeys().catch(() => undefined);
setInterval(refreshSearchKeysQuietly, SEARCH_KEYS_EVERY_MS);

refreshFailed().catch(failed);
refreshAlerts().catch(failed);
refreshSearchKeysQuietly();
connect();
