/// <reference lib="dom" />
import { api } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';

/* The messaging bot link (docs/messaging.md): a code to send to the bot, the chats linked. */
interface LinkState {
  links: Array<{ chat_id: string; linked_at: string; is_active: boolean; muted_until: string | null; last_delivery_at: string | null }>;
}

async function refresh(): Promise<void> {
  const state = await api<LinkState>('GET', '/api/v1/telegram/link');
  byId('links').querySelector('tbody')?.replaceChildren(
    ...state.links.map((l) =>
      el('tr', {}, el('td', {}, l.chat_id), el('td', {}, when(l.linked_at)), el('td', {}, l.is_active ? 'active' : 'unlinked (by you, or the bot was blocked)'), el('td', {}, when(l.muted_until)), el('td', {}, when(l.last_delivery_at))),
    ),
  );
  show(byId('unlink'), state.links.some((l) => l.is_active));
}

byId('create-code').addEventListener('click', () => {
  api<{ command: string; expires_at: string }>('POST', '/api/v1/telegram/link-code', {})
    .then((created) => {
      byId('link-command').textContent = created.command;
      byId('code-expiry').textContent = when(created.expires_at);
      show(byId('code-line'), true);
      say('Code created: send the command to the bot, then reload this page to see the link.', 'info');
    })
    .catch(failed);
});
byId('unlink').addEventListener('click', () => {
  api<{ unlinked: number }>('POST', '/api/v1/telegram/unlink', {})
    .then((r) => {
      say(`${r.unlinked} chat(s) unlinked: no more alerts there.`, 'info');
      return refresh();
    })
    .catch(failed);
});
refresh().catch(failed);
