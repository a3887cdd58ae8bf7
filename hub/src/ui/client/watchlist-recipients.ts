/// <reference lib="dom" />
import { ADMIN_WEBHOOKS_PATH, TELEGRAM_LINK_PATH, watchlistPartPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say } from './dom.ts';
import type { presentRecipients } from '../../watchlists/recipients.ts';
import type { presentWatchlist } from '../../watchlists/present.ts';

/*
 * The selected list's recipients (docs/watchlists.md "Recipients"): a box per chat (the list's
 * own and the caller's linked chats), a box per webhook target (admins: every target; operators
 * see the list's, unchangeable), and the MQTT mark. Saving sends the whole set. An operator's
 * boxes for other accounts' chats are shown ticked and disabled: the hub keeps those as they are.
 */
type Watchlist = ReturnType<typeof presentWatchlist>;
type Recipients = ReturnType<typeof presentRecipients>;
type Target = { id: string; name: string; enabled: boolean };

let shown: Recipients | undefined;
/** Admins' webhook targets, read once per page (the admin list is audited). */
let targets: Promise<Target[]> | undefined;

const isAdmin = (): boolean => document.getElementById('recipients-section')?.dataset['admin'] === 'true';

function box(name: string, value: string, checked: boolean, disabled: boolean, label: string): HTMLLIElement {
  return el('li', {}, el('label', { class: 'check' }, el('input', { type: 'checkbox', name, value, checked, disabled }), label));
}

function chatLabel(chat: { chat_id: string; mine: boolean; owner?: { email: string }; is_active?: boolean }): string {
  const kind = chat.chat_id.startsWith('-') ? 'Group chat' : 'Chat';
  const whose = chat.mine ? 'yours' : `linked by ${chat.owner?.email ?? 'another account'}`;
  return `${kind} ${chat.chat_id} (${whose}${chat.is_active === false ? ', unlinked: hears nothing' : ''})`;
}

export async function showRecipientsSection(w: Watchlist): Promise<void> {
  const section = document.getElementById('recipients-section');
  if (!section) return;
  section.hidden = w.kind === 'ignore';
  if (w.kind === 'ignore') return;
  const [recipients, mine] = await Promise.all([
    api<Recipients>('GET', watchlistPartPath(w.id, 'recipients')),
    api<{ links: Array<{ chat_id: string; is_active: boolean }> }>('GET', TELEGRAM_LINK_PATH).catch(() => ({ links: [] })),
  ]);
  shown = recipients;
  const admin = isAdmin();
  const named = new Set(recipients.chats.map((c) => c.chat_id));
  const chatItems = recipients.chats.map((c) => box('recipient-chat', c.chat_id, true, !admin && !c.mine, chatLabel(c)));
  for (const link of mine.links.filter((l) => l.is_active && !named.has(l.chat_id)))
    chatItems.push(box('recipient-chat', link.chat_id, false, false, chatLabel({ chat_id: link.chat_id, mine: true })));
  byId('recipients-chats').replaceChildren(
    ...(chatItems.length > 0 ? chatItems : [el('li', {}, 'No chat: link one on the Notifications page (in a group, send /link CODE there).')]),
  );

  const namedHooks = new Set(recipients.webhooks.map((h) => h.id));
  const all: Target[] = admin ? await (targets ??= api<{ data: Target[] }>('GET', ADMIN_WEBHOOKS_PATH).then((r) => r.data)) : recipients.webhooks;
  const hookLabel = (h: Target): string => `${h.name}${h.enabled ? '' : ' (off)'}`;
  byId('recipients-webhooks').replaceChildren(
    ...(all.length > 0 ? all.map((h) => box('recipient-webhook', h.id, namedHooks.has(h.id), !admin, hookLabel(h))) : [el('li', {}, 'None.')]),
  );
  byId<HTMLInputElement>('recipients-mqtt').checked = recipients.mqtt;
  const topic = byId('recipients-topic');
  topic.textContent = `${topic.dataset['prefix'] ?? 'alpr'}/watchlists/${w.id}/alerts`;
  const add = document.getElementById('recipients-add-chat') as HTMLInputElement | null;
  if (add) add.value = '';
}

const ticked = (name: string): string[] =>
  [...document.querySelectorAll<HTMLInputElement>(`input[name="${name}"]`)].filter((b) => b.checked).map((b) => b.value);

export function wireRecipientsSection(current: () => Watchlist | undefined, on: { fail: (err: unknown) => void }): void {
  document.getElementById('recipients-form')?.addEventListener('submit', (event) => {
    event.preventDefault();
    const list = current();
    if (!list || !shown) return;
    const typed = (document.getElementById('recipients-add-chat') as HTMLInputElement | null)?.value.trim() ?? '';
    const chats = [...new Set([...ticked('recipient-chat'), ...(typed ? [typed] : [])])];
    const body = { chats, webhooks: ticked('recipient-webhook'), mqtt: byId<HTMLInputElement>('recipients-mqtt').checked };
    api<Recipients>('PUT', watchlistPartPath(list.id, 'recipients'), body)
      .then(async (saved) => {
        const parts = [
          `${saved.chats.length} chat${saved.chats.length === 1 ? '' : 's'}`,
          `${saved.webhooks.length} webhook target${saved.webhooks.length === 1 ? '' : 's'}`,
          saved.mqtt ? 'its own MQTT topic' : 'no MQTT topic of its own',
        ];
        say(`Recipients of ${list.name} saved: ${parts.join(', ')}.`, 'info');
        await showRecipientsSection(list);
      })
      .catch(on.fail);
  });
}
