/// <reference lib="dom" />
import {
  NOTIFICATION_PREFERENCES_PATH,
  SUBSCRIPTIONS_PATH,
  TELEGRAM_LINK_CODE_PATH,
  TELEGRAM_LINK_PATH,
  TELEGRAM_MUTE_PATH,
  TELEGRAM_UNLINK_PATH,
} from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
import type { PreferenceRow } from '../../messaging/effective-preference.ts';
import type { LinkState } from '../../messaging/link-codes.ts';
import type { SubscriptionRecord as Subscription } from '../../watchlists/present.ts';

/*
 * Notifications (docs/messaging.md): the bot link code and linked chats, mute, and the
 * preferences per channel: a default (on/off, quiet hours, time zone) and an on/off per
 * subscribed watchlist.
 */
const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
let preferences: PreferenceRow[] = [];

async function refreshLinks(): Promise<void> {
  const state = await api<LinkState>('GET', TELEGRAM_LINK_PATH);
  byId('links')
    .querySelector('tbody')
    ?.replaceChildren(
      ...state.links.map((l) =>
        el(
          'tr',
          {},
          el('td', {}, l.chat_id),
          el('td', {}, when(l.linked_at)),
          el('td', {}, l.is_active ? 'active' : 'unlinked (by you, or the bot was blocked)'),
          el('td', {}, when(l.muted_until)),
          el('td', {}, when(l.last_delivery_at)),
        ),
      ),
    );
  const active = state.links.some((l) => l.is_active);
  for (const id of ['unlink', 'mute', 'unmute', 'mute-for']) show(byId(id), active);
}

const defaultOf = (channel: string): PreferenceRow | undefined => preferences.find((p) => p.channel === channel && p.watchlist_id === null);

function fillDefaults(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form.preference')) {
    const pref = defaultOf(form.dataset['channel'] ?? '');
    (form.elements.namedItem('enabled') as HTMLInputElement).checked = pref?.enabled ?? true;
    (form.elements.namedItem('quiet_hours_start') as HTMLInputElement).value = pref?.quiet_hours_start ?? '';
    (form.elements.namedItem('quiet_hours_end') as HTMLInputElement).value = pref?.quiet_hours_end ?? '';
    (form.elements.namedItem('timezone') as HTMLInputElement).value = pref?.timezone ?? browserZone;
  }
}

async function save(body: PreferenceRow, done: string): Promise<void> {
  const result = await api<{ preferences: PreferenceRow[] }>('PUT', NOTIFICATION_PREFERENCES_PATH, body);
  preferences = result.preferences;
  say(done, 'info');
}

function toggle(sub: Subscription, channel: 'telegram' | 'web'): HTMLElement {
  const own = preferences.find((p) => p.channel === channel && p.watchlist_id === sub.watchlist_id);
  const box = el('input', { type: 'checkbox', 'aria-label': `${channel} alerts for ${sub.name}` });
  box.checked = own?.enabled ?? defaultOf(channel)?.enabled ?? true;
  box.addEventListener('change', () => {
    const fallback = defaultOf(channel);
    save(
      {
        watchlist_id: sub.watchlist_id,
        channel,
        enabled: box.checked,
        quiet_hours_start: null,
        quiet_hours_end: null,
        timezone: fallback?.timezone ?? browserZone,
      },
      `${channel === 'web' ? 'Web' : 'Telegram'} alerts for ${sub.name}: ${box.checked ? 'on' : 'off'}.`,
    ).catch(failed);
  });
  return el('td', {}, box);
}

async function refreshPreferences(): Promise<void> {
  const [prefs, subs] = await Promise.all([
    api<{ preferences: PreferenceRow[] }>('GET', NOTIFICATION_PREFERENCES_PATH),
    api<{ data: Subscription[] }>('GET', SUBSCRIPTIONS_PATH),
  ]);
  preferences = prefs.preferences;
  fillDefaults();
  byId('per-watchlist')
    .querySelector('tbody')
    ?.replaceChildren(...subs.data.map((s) => el('tr', {}, el('td', {}, s.name), toggle(s, 'telegram'), toggle(s, 'web'))));
}

for (const form of document.querySelectorAll<HTMLFormElement>('form.preference')) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = (name: string): string => (form.elements.namedItem(name) as HTMLInputElement).value.trim();
    const channel = form.dataset['channel'] as 'telegram' | 'web';
    save(
      {
        watchlist_id: null,
        channel,
        enabled: (form.elements.namedItem('enabled') as HTMLInputElement).checked,
        quiet_hours_start: value('quiet_hours_start') || null,
        quiet_hours_end: value('quiet_hours_end') || null,
        timezone: value('timezone') || browserZone,
      },
      'Saved.',
    ).catch(failed);
  });
}

byId('create-code').addEventListener('click', () => {
  api<{ command: string; expires_at: string }>('POST', TELEGRAM_LINK_CODE_PATH, {})
    .then((created) => {
      byId('link-command').textContent = created.command;
      byId('code-expiry').textContent = when(created.expires_at);
      show(byId('code-line'), true);
      say('Code created: send the command to the bot, then reload this page to see the link.', 'info');
    })
    .catch(failed);
});
byId('unlink').addEventListener('click', () => {
  api<{ unlinked: number }>('POST', TELEGRAM_UNLINK_PATH, {})
    .then((r) => {
      say(`${r.unlinked} chat(s) unlinked: no more alerts there.`, 'info');
      return refreshLinks();
    })
    .catch(failed);
});
byId('mute').addEventListener('click', () => {
  api<{ chats: number; muted_until: string }>('POST', TELEGRAM_MUTE_PATH, { duration: byId<HTMLSelectElement>('mute-for').value })
    .then((r) => {
      say(`Muted until ${when(r.muted_until)} (${r.chats} chat(s)). Alerts meanwhile stay on the dashboard.`, 'info');
      return refreshLinks();
    })
    .catch(failed);
});
byId('unmute').addEventListener('click', () => {
  api('POST', TELEGRAM_MUTE_PATH, { duration: null })
    .then(() => {
      say('Unmuted.', 'info');
      return refreshLinks();
    })
    .catch(failed);
});
refreshLinks().catch(failed);
refreshPreferences().catch(failed);
