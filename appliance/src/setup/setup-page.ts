import { html } from 'hono/html';
import { ADAPTER_TYPES } from '@alpr/shared/adapters/types';
import type { CameraFormValues } from './camera-form.ts';
import type { SetupCamera } from './camera-store.ts';
import { errorBox, field, layout, noticeBox, select, type Html } from './page-layout.ts';
import type { ProbeReport } from './probe.ts';
import { discoverySection, type DiscoveryView } from '../discovery/view.ts';

/**
 * The page an unclaimed appliance shows at `/`: claim (or provisioning token), cameras,
 * test connection, status. Secrets never come back into it: the password and token inputs
 * are always rendered empty, the API key does not exist yet.
 */
export interface SetupView {
  hardwareId: string | undefined;
  hubUrl: string | undefined;
  cameras: SetupCamera[];
  probes: ReadonlyMap<string, ProbeReport>;
  claim?: { code?: string; error?: string };
  provision?: { token?: string; error?: string };
  camera?: { values: CameraFormValues; errors: string[] };
  /** The edit form of one camera (GET /setup/cameras/:id/edit, or a refused edit). */
  edit?: { id: string; values: CameraFormValues; errors: string[] };
  notice?: string;
  /** "Find cameras" results (docs/setup-page.md). */
  discovery?: DiscoveryView;
  /** Pre-claim status lines (buffer, camera states) from the diagnostics snapshot. */
  status: [string, string][];
}

export function renderSetupPage(view: SetupView): Html {
  return layout(
    'ALPR appliance setup',
    html`<h1>ALPR appliance: setup</h1>
<p>This appliance is <strong>not claimed</strong>. Enter the claim code shown for this collector on the hub. Hardware id: <code>${view.hardwareId ?? 'unknown'}</code></p>
${noticeBox(view.notice)}
<h2>Claim</h2>
${errorBox(view.claim?.error)}
<form method="post" action="/setup/claim">
${field('Hub URL', 'hub_url', view.hubUrl, { type: 'url', placeholder: 'https://hub.example.com', required: true })}
${field('Claim code', 'claim_code', view.claim?.code, { placeholder: 'ALPR-XXXX-XXXX', required: true })}
<button type="submit">Claim</button>
</form>
<h2>Or: provisioning token</h2>
${errorBox(view.provision?.error)}
<form method="post" action="/setup/provision">
${field('Hub URL', 'hub_url', view.hubUrl, { type: 'url', placeholder: 'https://hub.example.com', required: true })}
${field('Provisioning token', 'provisioning_token', view.provision?.token, { placeholder: 'prov_…', required: true })}
<button type="submit">Provision</button>
</form>
<h2>Cameras</h2>
${camerasTable(view)}
${view.edit ? editSection(view.edit) : ''}
<h3>Add a camera</h3>
${errorList(view.camera?.errors)}
${cameraForm(view.camera?.values ?? {})}
${discoverySection(view.discovery, view.cameras, cameraForm)}
<h2>Status</h2>
<table>${view.status.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</table>
<p><small><a href="/api/v1/status">status as JSON</a></small></p>`,
  );
}

function camerasTable(view: SetupView): Html | string {
  if (view.cameras.length === 0) return html`<p>No camera added yet.</p>`;
  const rows = view.cameras.map((cam) => {
    const e = cam.entry;
    const probe = view.probes.get(cam.id);
    return html`<tr><td>${cam.id}</td><td>${String(e['vendor'] ?? '')} / ${String(e['mode'] ?? '')}</td>
<td>${String(e['host'] ?? '')}${e['port'] !== undefined ? `:${String(e['port'])}` : ''}</td>
<td>${cam.hasCredentials ? 'stored encrypted' : 'none'}</td>
<td><form method="post" action="/setup/cameras/${encodeURIComponent(cam.id)}/test"><button type="submit">Test connection</button></form>
${probe ? probeResult(probe) : ''}</td>
<td><a href="/setup/cameras/${encodeURIComponent(cam.id)}/edit">Edit</a>
<form method="post" action="/setup/cameras/${encodeURIComponent(cam.id)}/delete"><button type="submit">Remove</button></form></td></tr>`;
  });
  return html`<table><tr><th>id</th><th>vendor / mode</th><th>address</th><th>credentials</th><th>connection</th><th></th></tr>${rows}</table>`;
}

function probeResult(p: ProbeReport): Html {
  return html`<div class="probe"><p class="${p.ok ? 'ok' : 'bad'}">${p.summary}</p><small>${p.url}</small>
<ul>${p.facts.map(([k, v]) => html`<li>${k}: ${v}</li>`)}</ul></div>`;
}

const errorList = (errors: string[] | undefined): Html | string =>
  errors && errors.length > 0 ? html`<div class="error" role="alert"><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : '';

function editSection(edit: NonNullable<SetupView['edit']>): Html {
  return html`<h3 id="edit">Edit camera ${edit.id}</h3>
${errorList(edit.errors)}
${cameraForm(edit.values, edit.id)}`;
}

/** The add form, or with `editing` the edit form of that camera (id fixed, blank secrets kept). */
function cameraForm(v: CameraFormValues, editing?: string): Html {
  return html`<form method="post" action="${editing === undefined ? '/setup/cameras' : `/setup/cameras/${encodeURIComponent(editing)}`}">
${editing === undefined ? field('Id', 'id', v.id, { placeholder: 'gate-1', required: true }) : html`<p>Id: <code>${editing}</code> (fixed: it keys the stored credentials and buffered reads)</p>`}
${field('Name', 'name', v.name)}
${select('Vendor', 'vendor', ADAPTER_TYPES, v.vendor)}
${select('Mode', 'mode', ['pull', 'push'], v.mode)}
${field('Host', 'host', v.host, { placeholder: '192.168.1.64' })}
${field('Port', 'port', v.port, { type: 'number' })}
${field('Username (vendor_a)', 'username', v.username, { placeholder: 'admin' })}
${field('Password (vendor_a)', 'password', undefined, { type: 'password' })}
${field('Token (vendor_b)', 'token', undefined, { type: 'password' })}
${field('Channel (vendor_a)', 'channel', v.channel, { type: 'number', placeholder: '1' })}
${field('Time zone', 'timezone', v.timezone, { placeholder: 'Europe/Paris' })}
${field('MAC (vendor_a)', 'mac', v.mac, { placeholder: 'aa:bb:cc:dd:ee:ff' })}
${field('Push source address (push)', 'push_source', v.push_source, { placeholder: 'default: the host; any = no pin' })}
${field('Push shared secret (push)', 'push_secret', undefined, { type: 'password' })}
<button type="submit">${editing === undefined ? 'Add camera' : 'Save camera'}</button>
<p><small>The password, token and push secret are stored encrypted on this device, never in the configuration file.${
    editing === undefined ? '' : ' Leave them blank to keep the stored ones.'
  }</small></p>
</form>`;
}
