/// <reference lib="dom" />
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, say, when } from './dom.ts';
import { reveal, withFreshFactor } from './fresh-factor.ts';

/*
 * Collectors for admins (docs/admin-api.md): the list with health, create (the claim code
 * shown once), rotate a key (the new key shown once, behind "I have copied it"; a fresh
 * second factor asked for when needed: client/fresh-factor.ts).
 */
interface Collector {
  id: string;
  site_name: string;
  status: string;
  connectivity: string;
  last_heartbeat_at: string | null;
  last_heartbeat: { queue_depth?: number; cameras_online?: number; cameras_total?: number } | null;
}

function rotate(c: Collector): Promise<void> {
  return withFreshFactor(async () => {
    const result = await api<{ new_key: string; new_key_prefix: string }>('POST', `/api/v1/admin/collectors/${c.id}/rotate-key`, { grace_period_hours: 24 });
    reveal(`New API key for ${c.site_name}`, 'The collector receives it with its next heartbeat; the old key keeps working for 24 hours. This is the only time the key is shown.', result.new_key);
    say(`Key ${result.new_key_prefix}… created.`, 'info');
  });
}

function row(c: Collector): HTMLTableRowElement {
  const rotateButton = el('button', { type: 'button', class: 'secondary' }, 'Rotate key');
  rotateButton.setAttribute('aria-label', `Rotate key of ${c.site_name}`);
  rotateButton.addEventListener('click', () => void rotate(c));
  const hb = c.last_heartbeat ?? {};
  return el(
    'tr',
    { 'data-collector': c.id },
    el('td', {}, c.site_name),
    el('td', {}, `${c.status}${c.status === 'active' ? `, ${c.connectivity}` : ''}`),
    el('td', {}, when(c.last_heartbeat_at)),
    el('td', {}, hb.queue_depth === undefined ? '—' : String(hb.queue_depth)),
    el('td', {}, hb.cameras_online === undefined ? '—' : `${hb.cameras_online}${hb.cameras_total === undefined ? '' : ` of ${hb.cameras_total}`}`),
    el('td', {}, c.status === 'active' ? rotateButton : ''),
  );
}

async function refresh(): Promise<void> {
  try {
    const list = await api<{ data: Collector[] }>('GET', '/api/v1/admin/collectors');
    byId('collectors').querySelector('tbody')?.replaceChildren(...list.data.map(row));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return signInAgain();
    say(err instanceof Error ? err.message : 'Could not list the collectors.');
  }
}

byId<HTMLFormElement>('create-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const siteName = byId<HTMLInputElement>('site-name').value.trim();
  const address = byId<HTMLInputElement>('site-address').value.trim();
  api<{ claim_code: string; claim_code_expires_at: string }>('POST', '/api/v1/admin/collectors', { site_name: siteName, ...(address ? { site_address: address } : {}) })
    .then((created) => {
      reveal(`Claim code for ${siteName}`, `Enter it on the appliance's setup page (port 8080) before ${when(created.claim_code_expires_at)}. It is shown only now.`, created.claim_code);
      byId<HTMLFormElement>('create-form').reset();
      return refresh();
    })
    .catch((err: unknown) => say(err instanceof Error ? err.message : 'Could not create the collector.'));
});

void refresh();
setInterval(() => void refresh(), 30_000);
