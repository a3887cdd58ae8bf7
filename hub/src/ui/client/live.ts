/// <reference lib="dom" />
import { ALERTS_PATH, NOTIFICATION_PREFERENCES_PATH, alertActionPath, alertPath } from '../../platform/http/paths.ts';
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { confidenceWords } from '@alpr/shared/detection/confidence';
import { imagePath } from './images.ts';
import { reconnectDelayMs } from './backoff.ts';
import { effectivePreference, type PreferenceRow } from '../../messaging/effective-preference.ts';
import { inQuietHours } from '../../messaging/delivery/quiet-hours.ts';
// The wire shapes, written once by the modules that produce them (type-only: erased from the bundle).
import type { AlertPayload as LiveAlert, AlertRecord, AlertVerificationRecord } from '../../alerts/payload.ts';
import { openVerification, verificationChanged, verificationLabel } from './verify-panel.ts';
import type { DetectionPayload } from '../../live/detection-payload.ts';
import type { Envelope } from '../../live/protocol.ts';

/*
 * The live page over `GET /ws` (docs/live.md): detections:live for the feed, alerts:* for
 * the banner. On a lost connection it says so, waits min(1 s x 2^n, 60 s) + 0-1 s,
 * reconnects, subscribes again, and fetches the alerts it missed with `since`, dropping
 * repeats by alert id.
 */
/**
 * An alert as the page keeps it: the REST record (GET /api/v1/alerts, or /{id} for one that
 * came live), or the bare live payload when that fetch failed (no state or verification then).
 */
type AlertPayload = LiveAlert & Partial<Pick<AlertRecord, 'state' | 'verification'>>;
const isRecord = (a: AlertPayload): a is AlertRecord => 'verification' in a && a.verification !== undefined;

const status = byId('connection');
const alertsList = byId('alerts');
const feed = byId('detections');
const banner = byId('alert-banner');
const seenAlerts = new Set<string>();
/** Each listed alert as last heard of, for the verification view. */
const alertsById = new Map<string, AlertPayload>();
let lastAlertAt: string | undefined;
let bannerAlert: string | undefined;
let attempt = 0;
let connectedBefore = false;
const FEED_MAX = 100;
// The user's web preferences (docs/messaging.md "Preferences"): a watchlist switched off
// for the web, or quiet hours, silence the sound and the desktop notification; the alert
// is still listed and bannered (alerts stay visible on the web).
let webPreferences: PreferenceRow[] = [];
void api<{ preferences: PreferenceRow[] }>('GET', NOTIFICATION_PREFERENCES_PATH)
  .then((r) => (webPreferences = r.preferences))
  .catch(() => undefined);

function audible(a: AlertPayload): boolean {
  const pref = effectivePreference(webPreferences, a.watchlist.id, 'web');
  return pref.enabled && !inQuietHours(new Date(), pref.quiet);
}

function setStatus(text: string, state: 'live' | 'down' | 'connecting'): void {
  status.textContent = text;
  status.dataset['state'] = state;
}

function beep(): void {
  if (!byId<HTMLInputElement>('sound').checked) return;
  const audio = new AudioContext();
  const tone = audio.createOscillator();
  tone.frequency.value = 880;
  tone.connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.25);
}

function alertItem(a: AlertPayload): HTMLElement {
  const ack = el('button', { type: 'button', class: 'secondary', 'data-alert': a.alert_id }, a.state && a.state !== 'new' ? a.state : 'Acknowledge');
  ack.disabled = Boolean(a.state && a.state !== 'new');
  ack.addEventListener('click', () => void acknowledge(a.alert_id));
  const crop = imagePath(a.detection.image_urls.crop);
  const label = verificationLabel(a.verification);
  const verify = el('button', { type: 'button', class: 'secondary', 'data-verify': a.alert_id }, 'Verify');
  verify.addEventListener('click', () => {
    const current = alertsById.get(a.alert_id);
    if (current && isRecord(current)) return openVerification(current);
    void api<AlertRecord>('GET', alertPath(a.alert_id))
      .then((record) => {
        alertsById.set(a.alert_id, record);
        openVerification(record);
      })
      .catch((err: unknown) => say(err instanceof Error ? err.message : 'Could not load the alert.'));
  });
  return el(
    'li',
    { class: `alert priority-${a.watchlist.priority}`, id: `alert-${a.alert_id}` },
    crop ? el('img', { src: crop, alt: `Plate ${a.plate_number}`, width: '120', height: '40' }) : null,
    // The read behind the alert: its page asks for a purpose before it shows anything.
    el('a', { class: 'plate', href: `/detections/${a.detection_id}`, 'data-detection': a.detection_id }, a.plate_number),
    // A retro-hunt's hit is a read from before the plate was listed (docs/watchlists.md "Retro-hunt").
    a.historical ? el('span', { class: 'historical muted', 'data-historical': 'true' }, 'historical') : null,
    label.text ? el('span', { class: `verification ${label.className}`, 'data-verification': a.verification?.state }, label.text) : null,
    el(
      'span',
      {},
      ` on ${a.watchlist.name} (${a.watchlist.priority}) · ${a.detection.collector_name}, ${a.detection.camera_name} · ${when(a.detection.captured_at)} · ${confidenceWords(a.detection.confidence)}`,
    ),
    a.entry.notes ? el('span', { class: 'notes' }, ` · ${a.entry.notes}`) : null,
    verify,
    ack,
  );
}

/** A verdict from the live channel: relabel the alert in the list and in an open view. */
function alertVerified(alertId: string, v: AlertVerificationRecord): void {
  const known = alertsById.get(alertId);
  if (known && isRecord(known)) alertsById.set(alertId, { ...known, verification: v });
  const span = document.querySelector<HTMLElement>(`#alert-${alertId} .verification`);
  if (span) {
    const label = verificationLabel(v);
    span.textContent = label.text;
    span.className = `verification ${label.className}`;
    span.dataset['verification'] = v.state;
  }
  verificationChanged(alertId, v);
}

function addAlert(a: AlertPayload, live: boolean): void {
  if (seenAlerts.has(a.alert_id)) return;
  seenAlerts.add(a.alert_id);
  alertsById.set(a.alert_id, a);
  alertsList.prepend(alertItem(a));
  if (!live || (a.state && a.state !== 'new')) return;
  bannerAlert = a.alert_id;
  // An alert on a list that requires verification says so until someone confirms it.
  byId('banner-text').textContent =
    `${a.historical ? 'HISTORICAL: ' : ''}${a.verification?.unverified ? 'UNVERIFIED: ' : ''}${a.plate_number} — ${a.watchlist.name} (${a.watchlist.priority}) at ${a.detection.collector_name}, ${when(a.detection.captured_at)}`;
  show(banner, true);
  if (!audible(a)) return;
  beep();
  if ('Notification' in window && Notification.permission === 'granted')
    new Notification(`Alert: ${a.plate_number}`, { body: `${a.watchlist.name} at ${a.detection.collector_name}` });
}

function addDetection(d: DetectionPayload): void {
  const crop = imagePath(d.image_urls.crop);
  feed.prepend(
    el(
      'li',
      { class: 'detection' },
      crop ? el('img', { src: crop, alt: `Plate ${d.plate_number}`, width: '120', height: '40' }) : null,
      el('a', { class: 'plate', href: `/detections/${d.id}` }, d.plate_number),
      el('span', {}, ` ${d.collector.name}, ${d.camera.name} · ${when(d.captured_at)} · ${confidenceWords(d.confidence)}`),
    ),
  );
  while (feed.childElementCount > FEED_MAX) feed.lastElementChild?.remove();
}

async function acknowledge(id: string): Promise<void> {
  try {
    await api('POST', alertActionPath(id, 'acknowledge'), {});
    const button = document.querySelector<HTMLButtonElement>(`#alert-${id} button`);
    if (button) {
      button.textContent = 'acknowledged';
      button.disabled = true;
    }
    if (bannerAlert === id) show(banner, false);
    say('Alert acknowledged.', 'info');
  } catch (err) {
    say(err instanceof Error ? err.message : 'Could not acknowledge the alert.');
  }
}

/**
 * Alerts missed while away. The first time the page connects they are only listed (the last
 * 24 hours); after a reconnect, the new ones raise the banner as if they had come live.
 */
async function catchUp(afterReconnect: boolean): Promise<void> {
  let cursor: string | undefined;
  const since = lastAlertAt;
  for (let page = 0; page < 20; page++) {
    const query = cursor ? `cursor=${encodeURIComponent(cursor)}` : since ? `since=${encodeURIComponent(since)}` : '';
    const result = await api<{ data: AlertRecord[]; next_cursor: string | null }>('GET', `${ALERTS_PATH}?${query}`);
    for (const a of result.data) {
      addAlert(a, afterReconnect);
      if (!lastAlertAt || a.created_at > lastAlertAt) lastAlertAt = a.created_at;
    }
    if (!result.next_cursor) return;
    cursor = result.next_cursor;
  }
}

/** The socket in use (or being opened), and the timer of a reconnect waiting out its backoff. */
let current: WebSocket | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

function connect(): void {
  retryTimer = undefined;
  setStatus(attempt === 0 ? 'Connecting…' : 'Reconnecting…', 'connecting');
  const socket = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws?v=1`);
  current = socket;
  let opened = false;
  socket.addEventListener('message', (event) => {
    const message = JSON.parse(String(event.data)) as Envelope;
    switch (message.type) {
      case 'connected':
        opened = true;
        attempt = 0;
        setStatus('Live', 'live');
        socket.send(JSON.stringify({ type: 'subscribe', payload: { feed: 'detections:live' } }));
        catchUp(connectedBefore).catch((err: unknown) => say(err instanceof ApiError ? err.message : 'Could not fetch missed alerts.'));
        connectedBefore = true;
        break;
      case 'alert': {
        const a = message.payload as unknown as LiveAlert;
        if (!lastAlertAt || message.timestamp > lastAlertAt) lastAlertAt = message.timestamp;
        // The live payload has exactly the fields of docs/live.md; the record adds the verification.
        void api<AlertRecord>('GET', alertPath(a.alert_id)).then(
          (record) => addAlert(record, true),
          () => addAlert(a, true),
        );
        break;
      }
      case 'alert_verification': {
        const p = message.payload as unknown as { alert_id: string; verification: AlertVerificationRecord };
        alertVerified(p.alert_id, p.verification);
        break;
      }
      case 'detection':
        addDetection(message.payload as unknown as DetectionPayload);
        break;
      case 'ping':
        socket.send(JSON.stringify({ type: 'pong', payload: {} }));
        break;
      case 'error':
        // The channel's codes (docs/live.md "Errors"): a session refused or ended means signing in again.
        if (message.payload['code'] === 'AUTH_REQUIRED' || message.payload['code'] === 'AUTH_FAILED') signInAgain();
        break;
      default:
        break;
    }
  });
  socket.addEventListener('close', (event) => {
    if (event.code === 4401 || (!opened && event.code === 1006 && attempt > 2)) {
      // Refused at the upgrade or ended: find out whether the session is gone.
      void api('GET', '/auth/me').catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 401) signInAgain();
      });
    }
    if (current !== socket) return;
    current = undefined;
    const delay = reconnectDelayMs(attempt, Math.random());
    attempt += 1;
    setStatus(`Connection lost: reconnecting in ${Math.ceil(delay / 1000)} s…`, 'down');
    retryTimer = setTimeout(connect, delay);
  });
}

/**
 * A phone that wakes up, or a laptop back on the network, must not sit out a backoff of up to
 * a minute before alerts resume: reconnect at once, then catch up with `since` as any
 * reconnect does (docs/live.md "Reconnecting").
 */
function reconnectNow(): void {
  if (document.visibilityState !== 'visible') return;
  if (current?.readyState === WebSocket.OPEN) return;
  // A socket still opening after a sleep may never finish: drop it (its close is ignored).
  const stale = current;
  current = undefined;
  stale?.close();
  if (retryTimer !== undefined) clearTimeout(retryTimer);
  attempt = 0;
  connect();
}
document.addEventListener('visibilitychange', reconnectNow);
window.addEventListener('online', reconnectNow);

byId('banner-ack').addEventListener('click', () => bannerAlert && void acknowledge(bannerAlert));
byId('banner-close').addEventListener('click', () => show(banner, false));
byId('notify').addEventListener('click', () => {
  if (!('Notification' in window)) return say('This browser has no desktop notifications.');
  void Notification.requestPermission().then((p) => say(p === 'granted' ? 'Desktop notifications are on.' : 'Desktop notifications stay off.', 'info'));
});
connect();
