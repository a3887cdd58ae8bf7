import { html } from 'hono/html';
import type { CameraFormValues } from './camera-form.ts';
import type { SetupCamera } from './camera-store.ts';
import { discoverySection, type DiscoveryView } from './discovery-section.ts';
import { errorBox, field, layout, noticeBox, select, type Html } from './page-layout.ts';
import type { ProbeReport } from './probe.ts';
import type { FrameTest } from './snapshot-probe.ts';

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
  /** Ordinary cameras: the frame the last "Test" read (snapshot-probe.ts). */
  frames?: ReadonlyMap<string, FrameTest>;
  claim?: { code?: string; error?: string };
  provision?: { token?: string; error?: string };
  camera?: { values: CameraFormValues; errors: string[] };
  /** The edit form of one camera (GET /setup/cameras/:id/edit, or a refused edit). */
  edit?: { id: string; values: CameraFormValues; errors: string[] };
  notice?: string;
  /** "Find cameras" results (docs/setup-page.md). */
  discovery?: DiscoveryView;
  /**
   * The hub certificate fingerprint typed, and the one the hub presented when a claim was
   * refused for it (docs/setup-page.md "Hub certificate").
   */
  certificate?: { typed?: string; presented?: string };
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
${certificateField(view)}
<button type="submit">Claim</button>
</form>
<h2>Or: provisioning token</h2>
${errorBox(view.provision?.error)}
<form method="post" action="/setup/provision">
${field('Hub URL', 'hub_url', view.hubUrl, { type: 'url', placeholder: 'https://hub.example.com', required: true })}
${field('Provisioning token', 'provisioning_token', view.provision?.token, { placeholder: 'prov_…', required: true })}
${certificateField(view)}
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

/**
 * Needed when the hub's certificate is not publicly trusted (its own, generated one): the
 * installer copies the fingerprint from the hub's collector page. The one the hub presented
 * is shown after a refusal, for comparison, never filled in: confirming is the point.
 */
function certificateField(view: SetupView): Html {
  const presented = view.certificate?.presented;
  return html`${field("Hub certificate fingerprint (SHA-256, from the hub's collector page)", 'hub_certificate_sha256', view.certificate?.typed, {
    placeholder: 'AB:CD:…  (leave empty for a publicly trusted hub)',
  })}
${presented ? html`<p class="presented">The hub presented: <code>${presented}</code></p>` : ''}`;
}

function camerasTable(view: SetupView): Html | string {
  if (view.cameras.length === 0) return html`<p>No camera added yet.</p>`;
  const rows = view.cameras.map((cam) => {
    const e = cam.entry;
    const probe = view.probes.get(cam.id);
    // data-label: the narrow layout hides the header row and names each value (shared/src/ui/stylesheet.ts).
    return html`<tr><td data-label="id">${cam.id}</td><td data-label="vendor / mode">${String(e['vendor'] ?? '')} / ${String(e['mode'] ?? '')}</td>
<td data-label="address">${String(e['host'] ?? '')}${e['port'] !== undefined ? `:${String(e['port'])}` : ''}</td>
<td data-label="credentials">${cam.hasCredentials ? 'stored encrypted' : 'none'}</td>
<td data-label="connection"><form method="post" action="/setup/cameras/${encodeURIComponent(cam.id)}/test"><button type="submit">Test connection</button></form>
${probe ? probeResult(probe) : ''}${frameView(cam.id, view.frames?.get(cam.id))}</td>
<td><a href="/setup/cameras/${encodeURIComponent(cam.id)}/edit">Edit</a>
<form method="post" action="/setup/cameras/${encodeURIComponent(cam.id)}/delete"><button type="submit">Remove</button></form></td></tr>`;
  });
  return html`<table><thead><tr><th>id</th><th>vendor / mode</th><th>address</th><th>credentials</th><th>connection</th><th></th></tr></thead>${rows}</table>`;
}

/**
 * The tested frame with a box round each plate found, drawn in SVG over the picture (no script,
 * no stylesheet change): the picture scales to the cell, the boxes with it.
 */
function frameView(id: string, frame: FrameTest | undefined): Html | string {
  if (!frame) return '';
  const read = frame.plates.length > 0 ? frame.plates.map((p) => p.plate).join(', ') : 'no plate';
  const stroke = Math.max(2, Math.round(frame.width / 300));
  return html`<figure class="frame-test"><svg viewBox="0 0 ${frame.width} ${frame.height}" width="100%" role="img" aria-label="Last frame from camera ${id}, read: ${read}">
<image href="/setup/cameras/${encodeURIComponent(id)}/frame.jpg" x="0" y="0" width="${frame.width}" height="${frame.height}"></image>
${frame.plates.map(
  (p) =>
    html`<rect x="${p.box.x}" y="${p.box.y}" width="${p.box.width}" height="${p.box.height}" fill="none" stroke="#ff2d2d" stroke-width="${stroke}"></rect>`,
)}</svg><figcaption>Read: ${read}</figcaption></figure>`;
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

/**
 * The kinds of device in an installer's words (docs/cameras-central.md "Fields"): the same
 * labels as the hub's camera form. The codes stay the values the configuration uses.
 */
export const VENDOR_CHOICES = [
  ['vendor_a', 'ISAPI camera or NVR (Digest login)'],
  ['vendor_b', 'Protect console (API key)'],
  // Plate readers post their reads (docs/readers.md): push only, no address needed.
  ['plate_recognizer', 'Plate Recognizer (Stream or Snapshot webhook)'],
  ['codeproject_ai', 'CodeProject.AI ALPR (relayed answers)'],
  ['openalpr', 'OpenALPR agent'],
  ['generic_json', 'Other reader (generic JSON)'],
  // Frigate publishes to an MQTT broker this device subscribes to (docs/readers.md "Frigate").
  ['frigate', 'Frigate (MQTT events, HTTP snapshots)'],
  // Any IP camera: this device reads the plates itself (docs/ordinary-cameras.md).
  ['snapshot', 'Ordinary IP camera (this device reads the plates)'],
] as const;
export const MODE_CHOICES = [
  ['pull', 'This device polls the camera (pull)'],
  ['push', 'The camera sends to this device (push)'],
] as const;
const HOST_PATTERN = '[A-Za-z0-9.:\\[\\]\\-]+';
const MAC_PATTERN = '([0-9A-Fa-f]{2}[:\\-]?){5}[0-9A-Fa-f]{2}';
const TIME_ZONE_PATTERN = '[A-Za-z_]+(/[A-Za-z0-9_+\\-]+)*';

/** The add form, or with `editing` the edit form of that camera (id fixed, blank secrets kept). */
function cameraForm(v: CameraFormValues, editing?: string): Html {
  return html`<form method="post" action="${editing === undefined ? '/setup/cameras' : `/setup/cameras/${encodeURIComponent(editing)}`}">
${editing === undefined ? field('Id', 'id', v.id, { placeholder: 'gate-1', required: true }) : html`<p>Id: <code>${editing}</code> (fixed: it keys the stored credentials and buffered reads)</p>`}
${field('Name', 'name', v.name, { placeholder: 'North gate', hint: 'What operators see in alerts and search.' })}
${select('Kind of device', 'vendor', VENDOR_CHOICES, v.vendor)}
${select('How reads arrive', 'mode', MODE_CHOICES, v.mode)}
${field('Address (host or IP)', 'host', v.host, { placeholder: '192.168.1.64', pattern: HOST_PATTERN, hint: 'Needed when this device polls the camera, and for every Protect console.' })}
${field('Port', 'port', v.port, { type: 'number', min: 1, max: 65535, hint: 'Empty: 80 for ISAPI, 443 for a Protect console.' })}
<fieldset><legend>ISAPI camera or NVR, polled by this device</legend>
${field('Username', 'username', v.username, { placeholder: 'admin', autocomplete: 'off', hint: 'The camera login (Digest). Needed to poll.' })}
${field('Password', 'password', undefined, { type: 'password', autocomplete: 'new-password' })}
${field('Channel', 'channel', v.channel, { type: 'number', min: 1, max: 999, placeholder: '1', hint: 'The traffic channel of an NVR; 1 for a single camera.' })}
${field('MAC address', 'mac', v.mac, { placeholder: 'aa:bb:cc:dd:ee:ff', pattern: MAC_PATTERN, hint: 'Read from the camera when empty.' })}
</fieldset>
<fieldset><legend>Protect console</legend>
${field('API key or token', 'token', undefined, { type: 'password', autocomplete: 'new-password', hint: 'From the console: Settings, Control Plane, Integrations.' })}
</fieldset>
<fieldset><legend>Cameras and plate readers that send to this device (push)</legend>
<p><small>A plate reader posts to <code>/api/v1/ingest/&lt;kind&gt;?camera=&lt;id&gt;</code> on this device; docs/readers.md says where to set it in each product.</small></p>
${field('Only accept from', 'push_source', v.push_source, { placeholder: 'default: the address above; any = no pin' })}
${field('Shared secret', 'push_secret', undefined, { type: 'password', autocomplete: 'new-password', hint: 'At least 16 characters; the camera sends it with each post.' })}
</fieldset>
<fieldset><legend>Ordinary IP camera (kind Ordinary, mode pull; username and password above)</legend>
${field('Snapshot URL', 'snapshot_url', v.snapshot_url, { placeholder: 'http://192.168.1.64/cgi-bin/snapshot.cgi or /ISAPI/Streaming/channels/101/picture', hint: 'Empty: the usual Hikvision, Dahua and Axis paths on the address above are tried.' })}
${field('RTSP URL', 'rtsp_url', v.rtsp_url, { placeholder: 'rtsp://192.168.1.64:554/stream1', hint: 'Instead of snapshots, where ffmpeg is installed on this device.' })}
${field('Frames a second', 'frames_per_second', v.frames_per_second, { type: 'number', min: 0.2, max: 10, placeholder: '4' })}
${field('Plate region', 'region', v.region, { placeholder: 'us, eu, br', pattern: '[a-z]{2}(-[a-z0-9]{1,8})?', hint: 'The plate formats to expect.' })}
</fieldset>
<fieldset><legend>Frigate (kind Frigate, mode pull; the address above is Frigate's, port 5000)</legend>
${field('MQTT broker', 'mqtt_url', v.mqtt_url, { placeholder: 'mqtt://192.168.1.10:1883', hint: "The broker in Frigate's mqtt: section; mqtts:// for TLS. Username and password above are the broker login." })}
${field('Topic prefix', 'mqtt_topic_prefix', v.mqtt_topic_prefix, { placeholder: 'frigate', hint: "Frigate's mqtt.topic_prefix." })}
</fieldset>
${field('Time zone of the camera clock', 'timezone', v.timezone, { placeholder: 'Europe/Paris', pattern: TIME_ZONE_PATTERN })}
<button type="submit">${editing === undefined ? 'Add camera' : 'Save camera'}</button>
<p><small>The password, token and push secret are stored encrypted on this device, never in the configuration file.${
    editing === undefined ? '' : ' Leave them blank to keep the stored ones.'
  }</small></p>
</form>`;
}
