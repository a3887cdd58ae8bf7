/// <reference lib="dom" />
import { ADMIN_COLLECTORS_PATH, adminCollectorPartPath, adminCollectorPath, adminKeyActionPath } from '../../platform/http/paths.ts';
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
import { collectorStatusWords } from './collector-words.ts';
import { reveal, withFreshFactor } from './fresh-factor.ts';
import { bindCameraForm, showCameras } from './cameras.ts';
import { cameraAnswerLines } from './camera-form.ts';
import { bindStateActions, showState } from './collector-state.ts';
import { openCountsByCollector } from './health-alerts.ts';
import { claimCodeCertificateNote, showHubCertificate } from './hub-certificate.ts';
// The wire shapes, written once by the server's presenters (type-only: erased from the bundle).
import type { presentCollector, presentKey } from '../../admin/present.ts';
import type { CameraRecord } from '../../collectors/cameras/list.ts';
import type { CommandRecord } from '../../collectors/list-commands.ts';

/*
 * Collectors for admins (docs/admin-api.md): the list with health, create (the claim code
 * shown once), rotate a key (the new key shown once, behind "I have copied it"; a fresh
 * second factor asked for when needed: client/fresh-factor.ts). A collector's view: its
 * cameras (cameras.ts), keys, commands with each camera's answer, suspend/resume and
 * replacement (collector-state.ts), configuration, decommission and wipe.
 */
type Collector = ReturnType<typeof presentCollector>;
type Key = ReturnType<typeof presentKey>;

function rotate(c: Collector): Promise<void> {
  return withFreshFactor(async () => {
    const result = await api<{ new_key: string; new_key_prefix: string }>('POST', adminCollectorPartPath(c.id, 'rotate-key'), { grace_period_hours: 24 });
    reveal(
      `New API key for ${c.site_name}`,
      'The collector receives it with its next heartbeat; the old key keeps working for 24 hours. This is the only time the key is shown.',
      result.new_key,
    );
    say(`Key ${result.new_key_prefix}… created.`, 'info');
  });
}

let managed: Collector | undefined;

/** A config push's answer per camera (docs/cameras-central.md "What the hub is told"). */
function cameraAnswers(m: CommandRecord, names: ReadonlyMap<string, string>): HTMLUListElement | null {
  const lines = cameraAnswerLines(m.ack_cameras, names);
  return lines.length === 0 ? null : el('ul', { class: 'camera-answers' }, ...lines.map((line) => el('li', {}, line)));
}

async function manage(listed: Collector): Promise<void> {
  // Read afresh: suspend, resume and replacement change the collector after the list was drawn.
  const [c, keys, commands, cameras] = await Promise.all([
    api<Collector>('GET', adminCollectorPath(listed.id)),
    api<{ data: Key[] }>('GET', adminCollectorPartPath(listed.id, 'keys')),
    api<{ data: CommandRecord[] }>('GET', adminCollectorPartPath(listed.id, 'commands')),
    api<{ data: CameraRecord[] }>('GET', adminCollectorPartPath(listed.id, 'cameras')),
  ]);
  managed = c;
  byId('manage-title').textContent = `Manage ${c.site_name}`;
  const onAppliance = c.last_heartbeat?.['cameras_total'];
  showCameras(c.id, cameras.data, typeof onAppliance === 'number' ? onAppliance : undefined);
  showState(c);
  const names = new Map(cameras.data.map((camera) => [camera.id, camera.name]));
  byId('keys')
    .querySelector('tbody')
    ?.replaceChildren(
      ...keys.data.map((k) => {
        const revoke = el('button', { type: 'button', class: 'secondary' }, 'Revoke');
        revoke.setAttribute('aria-label', `Revoke key ${k.prefix}`);
        revoke.addEventListener('click', () => {
          const reason = prompt(`Why revoke key ${k.prefix}? (recorded in the audit log)`);
          if (reason)
            void withFreshFactor(async () => {
              await api('POST', adminKeyActionPath(k.id, 'revoke'), { reason });
              say(`Key ${k.prefix} revoked.`, 'info');
              await manage(c);
            });
        });
        return el(
          'tr',
          {},
          el('td', {}, el('code', {}, k.prefix)),
          el('td', {}, k.status),
          el('td', {}, when(k.created_at)),
          el('td', {}, when(k.last_used_at)),
          el('td', {}, k.status === 'revoked' || k.status === 'expired' ? '' : revoke),
        );
      }),
    );
  byId('commands')
    .querySelector('tbody')
    ?.replaceChildren(
      ...commands.data.map((m) =>
        el(
          'tr',
          {},
          el('td', {}, m.type),
          el('td', {}, m.status),
          el('td', {}, m.ack_status ? `${m.ack_status}${m.ack_detail ? `: ${m.ack_detail}` : ''}` : '—', cameraAnswers(m, names)),
          el('td', {}, when(m.created_at)),
          el('td', {}, when(m.acknowledged_at)),
        ),
      ),
    );
  show(byId('manage'), true);
}

function confirmed(inputId: string, c: Collector): boolean {
  if (byId<HTMLInputElement>(inputId).value.trim() === c.site_name) return true;
  say(`Type the site name exactly (${c.site_name}) to confirm.`);
  return false;
}

/** Open health alerts of the collector, linking to the health page filtered to it; blank when the hub has none to tell. */
function healthCell(c: Collector, counts: ReadonlyMap<string, number> | undefined): HTMLTableCellElement {
  if (!counts) return el('td', {}, '—');
  const open = counts.get(c.id) ?? 0;
  // The name repeats the visible words: axe's label-content-name-mismatch (serious) flags "0 open" for "none open".
  const words = open === 0 ? 'none open' : `${open} open`;
  const link = el('a', { href: `/admin/health?collector_id=${encodeURIComponent(c.id)}`, 'aria-label': `Health alerts of ${c.site_name}: ${words}` }, words);
  if (open > 0) {
    link.className = 'status';
    link.dataset['state'] = 'down';
  }
  return el('td', { 'data-health-open': String(open) }, link);
}

function row(c: Collector, counts?: ReadonlyMap<string, number>): HTMLTableRowElement {
  const manageButton = el('button', { type: 'button', class: 'secondary' }, 'Manage');
  manageButton.setAttribute('aria-label', `Manage ${c.site_name}`);
  manageButton.addEventListener('click', () => void manage(c).catch(failed));
  const rotateButton = el('button', { type: 'button', class: 'secondary' }, 'Rotate key');
  rotateButton.setAttribute('aria-label', `Rotate key of ${c.site_name}`);
  rotateButton.addEventListener('click', () => void rotate(c));
  const hb = c.last_heartbeat ?? {};
  return el(
    'tr',
    { 'data-collector': c.id },
    el('td', {}, c.site_name),
    el('td', {}, collectorStatusWords(c)),
    healthCell(c, counts),
    el('td', {}, when(c.last_heartbeat_at)),
    el('td', {}, hb.queue_depth === undefined ? '—' : String(hb.queue_depth)),
    el('td', {}, hb.cameras_online === undefined ? '—' : `${hb.cameras_online}${hb.cameras_total === undefined ? '' : ` of ${hb.cameras_total}`}`),
    el('td', { class: 'actions' }, c.status === 'active' ? rotateButton : '', manageButton),
  );
}

async function refresh(): Promise<void> {
  try {
    // The counts are extra: a failure there leaves the column blank, not the list empty.
    const [list, counts] = await Promise.all([api<{ data: Collector[] }>('GET', ADMIN_COLLECTORS_PATH), openCountsByCollector().catch(() => undefined)]);
    byId('collectors')
      .querySelector('tbody')
      ?.replaceChildren(...list.data.map((c) => row(c, counts)));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return signInAgain();
    say(err instanceof Error ? err.message : 'Could not list the collectors.');
  }
}

byId<HTMLFormElement>('create-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const siteName = byId<HTMLInputElement>('site-name').value.trim();
  const address = byId<HTMLInputElement>('site-address').value.trim();
  api<{ claim_code: string; claim_code_expires_at: string; hub_certificate_sha256: string | null }>('POST', ADMIN_COLLECTORS_PATH, {
    site_name: siteName,
    ...(address ? { site_address: address } : {}),
  })
    .then((created) => {
      reveal(
        `Claim code for ${siteName}`,
        `Enter it on the appliance's setup page (port 8080) before ${when(created.claim_code_expires_at)}. It is shown only now.${claimCodeCertificateNote(created.hub_certificate_sha256)}`,
        created.claim_code,
      );
      byId<HTMLFormElement>('create-form').reset();
      return refresh();
    })
    .catch((err: unknown) => say(err instanceof Error ? err.message : 'Could not create the collector.'));
});

byId('provision').addEventListener('click', () => {
  const c = managed;
  if (!c) return;
  api<{ provisioning_token: string; expires_at: string }>('POST', adminCollectorPartPath(c.id, 'provisioning-tokens'), {})
    .then((t) => reveal(`Provisioning token for ${c.site_name}`, `Single use, valid until ${when(t.expires_at)}; shown only now.`, t.provisioning_token))
    .catch(failed);
});
byId<HTMLFormElement>('config-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const c = managed;
  if (!c) return;
  let config: unknown;
  try {
    config = JSON.parse(byId<HTMLTextAreaElement>('config').value);
  } catch {
    return say('The configuration is not valid JSON.');
  }
  api<{ config_version: number }>('POST', adminCollectorPartPath(c.id, 'config'), { config })
    .then((r) => {
      say(`Configuration version ${r.config_version} queued; the collector picks it up with its next heartbeat and answers (see Commands sent).`, 'info');
      return manage(c);
    })
    .catch(failed);
});
byId<HTMLFormElement>('decommission-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const c = managed;
  if (!c || !confirmed('decommission-confirm', c)) return;
  void withFreshFactor(async () => {
    await api('POST', adminCollectorPartPath(c.id, 'decommission'), { reason: byId<HTMLInputElement>('decommission-reason').value.trim() });
    say(`${c.site_name} decommissioned: its keys are revoked.`, 'info');
    await refresh();
    await manage(c);
  });
});
byId<HTMLFormElement>('wipe-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const c = managed;
  if (!c || !confirmed('wipe-confirm', c)) return;
  void withFreshFactor(async () => {
    await api('POST', adminCollectorPartPath(c.id, 'wipe'), {});
    say(`Wipe queued for ${c.site_name}: it runs at the collector's next heartbeat.`, 'info');
    await manage(c);
  });
});

bindCameraForm(async () => {
  if (managed) await manage(managed);
});
bindStateActions(
  () => managed,
  async (c) => {
    await refresh();
    await manage(c);
  },
);

void refresh();
// Blank on failure: the line is help, the list works without it.
void showHubCertificate().catch(() => undefined);
setInterval(() => void refresh(), 30_000);
