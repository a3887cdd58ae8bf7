/// <reference lib="dom" />
import { ADMIN_SITES_PATH, ADMIN_WEBHOOKS_PATH, adminWebhookActionPath, adminWebhookPath } from '../../platform/http/paths.ts';
import { api } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
// The wire shape, written once by the server (type-only: erased from the bundle).
import type { presentTarget } from '../../webhooks/targets.ts';
import type { SiteRecord } from '../../sites/manage.ts';

/*
 * Webhook targets (docs/webhooks.md): the list with each target's queue and last delivery,
 * "Send test event" (queued like any event, signed, retried), on/off, remove, and the form
 * that adds one and shows its secret once.
 */
type Target = Required<ReturnType<typeof presentTarget>>;

const EVENT_LABELS: Record<string, string> = { alert: 'alerts', health: 'health alerts', detection: 'detections' };

function lastDelivery(w: Target): string {
  const ok = w.last_success_at ? Date.parse(w.last_success_at) : 0;
  const bad = w.last_failure_at ? Date.parse(w.last_failure_at) : 0;
  if (ok === 0 && bad === 0) return 'none yet';
  if (ok >= bad) return `delivered ${when(w.last_success_at)}`;
  return `failed ${when(w.last_failure_at)}: ${w.last_status === null ? (w.last_error ?? 'no answer') : `HTTP ${w.last_status}`}`;
}

function action(label: string, name: string, run: () => Promise<unknown>): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'secondary', 'aria-label': `${label}: ${name}` }, label);
  button.addEventListener('click', () => {
    button.disabled = true;
    run()
      .then(refresh)
      .catch(failed)
      .finally(() => {
        button.disabled = false;
      });
  });
  return button;
}

/** Site names by id, for the list's "only at" words; filled with the form's choices. */
const siteNames = new Map<string, string>();

function siteWords(ids: readonly string[] | undefined): string {
  if (!ids) return '';
  // A site removed since keeps its id in the filter and matches nothing: said, not hidden.
  return ` · only at ${ids.map((id) => siteNames.get(id) ?? 'a removed site').join(', ')}`;
}

function row(w: Target): HTMLTableRowElement {
  const filter = `${w.filter.plate_pattern ? ` · plates like ${w.filter.plate_pattern}` : ''}${siteWords(w.filter.site_ids)}`;
  const test = action('Send test event', w.name, async () => {
    const { message_id } = await api<{ message_id: string }>('POST', adminWebhookActionPath(w.id, 'test'), {});
    say(`Test event ${message_id} queued for ${w.name}: it is signed and sent within seconds; its result shows under Last delivery.`, 'info');
    followDeliveries();
  });
  const toggle = action(w.enabled ? 'Turn off' : 'Turn on', w.name, () => api('PATCH', adminWebhookPath(w.id), { enabled: !w.enabled }));
  const remove = action('Remove', w.name, async () => {
    if (!window.confirm(`Remove the webhook target ${w.name}? Its queued deliveries are dropped.`)) return;
    await api('DELETE', adminWebhookPath(w.id), {});
    say(`${w.name} removed.`, 'info');
  });
  return el(
    'tr',
    { 'data-webhook': w.id },
    el('td', {}, el('strong', {}, w.name), el('br', {}), el('span', { class: 'muted' }, w.url)),
    el('td', {}, `${w.events.map((e) => EVENT_LABELS[e] ?? e).join(', ')}${filter}${w.enabled ? '' : ' (off)'}`),
    el('td', {}, `${w.pending} waiting, ${w.failed} failed`),
    el('td', { 'data-last': '' }, lastDelivery(w)),
    el('td', { class: 'actions' }, test, toggle, remove),
  );
}

/** After a test event, the list is read again every 2 s for 30 s, so its result shows up. */
let following: number | undefined;
function followDeliveries(): void {
  window.clearInterval(following);
  let left = 15;
  following = window.setInterval(() => {
    left -= 1;
    if (left <= 0) window.clearInterval(following);
    refresh().catch(failed);
  }, 2_000);
}

async function refresh(): Promise<void> {
  const { data } = await api<{ data: Target[] }>('GET', ADMIN_WEBHOOKS_PATH);
  byId('targets')
    .querySelector('tbody')
    ?.replaceChildren(...data.map(row));
  show(byId('targets'), data.length > 0);
  show(byId('no-targets'), data.length === 0);
}

byId<HTMLFormElement>('webhook-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = (id: string) => byId<HTMLInputElement>(id).value.trim();
  const events = (['alert', 'health', 'detection'] as const).filter((e) => byId<HTMLInputElement>(`hook-${e}`).checked);
  if (events.length === 0) {
    say('Pick at least one kind of event.');
    return;
  }
  const plate = value('hook-plate');
  const sites = [...byId('hook-sites').querySelectorAll<HTMLInputElement>('input[name="hook-site"]:checked')].map((i) => i.value);
  api<{ webhook: Target; secret: string }>('POST', ADMIN_WEBHOOKS_PATH, {
    name: value('hook-name'),
    url: value('hook-url'),
    events,
    filter: { ...(plate ? { plate_pattern: plate } : {}), ...(sites.length > 0 ? { site_ids: sites } : {}) },
  })
    .then((created) => {
      byId('secret').textContent = created.secret;
      show(byId('secret-section'), true);
      say(`${created.webhook.name} added. Its signing secret is below, shown this once.`, 'info');
      byId<HTMLFormElement>('webhook-form').reset();
      return refresh();
    })
    .catch(failed);
});
/** The sites to pick from, then the list (which names them). */
async function start(): Promise<void> {
  const { data } = await api<{ data: SiteRecord[] }>('GET', ADMIN_SITES_PATH);
  for (const site of data) siteNames.set(site.id, site.name);
  const fieldset = byId('hook-sites');
  const legend = fieldset.querySelector('legend');
  fieldset.replaceChildren(
    ...(legend ? [legend] : []),
    ...data.map((site) => el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'hook-site', value: site.id }), ` ${site.name}`)),
  );
  await refresh();
}
start().catch(failed);
