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
<h3>Add a camera</h3>
${view.camera && view.camera.errors.length > 0 ? html`<div class="error" role="alert"><ul>${view.camera.errors.map((e) => html`<li>${e}</li>`)}</ul></div>` : ''}
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
${probe ? probeResult(probe) : ''}</td></tr>`;
  });
  return html`<table><tr><th>id</th><th>vendor / mode</th><th>address</th><th>credentials</th><th>connection</th></tr>${rows}</table>`;
}

function probeResult(p: ProbeReport): Html {
  return html`<div class="probe"><p class="${p.ok ? 'ok' : 'bad'}">${p.summary}</p><small>${p.url}</small>
<ul>${p.facts.map(([k, v]) => html`<li>${k}: ${v}</li>`)}</ul></div>`;
}

function cameraForm(v: CameraFormValues): Html {
  return html`<form method="post" action="/setup/cameras">
${field('Id', 'id', v.id, { placeholder: 'gate-1', required: true })}
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
<button type="submit">Add camera</button>
<p><small>The password and token are stored encrypted on this device, never in the configuration file.</small></p>
</form>`;
}
