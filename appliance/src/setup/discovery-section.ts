import { html } from 'hono/html';
import type { DiscoveryResult } from '../discovery/discovery.ts';
import type { DiscoveredDevice } from '../discovery/probe.ts';
import type { CameraFormValues } from './camera-form.ts';
import type { SetupCamera } from './camera-store.ts';
import { errorBox, noticeBox, type Html } from './page-layout.ts';

/** What the setup page shows about discovery: the last result and a message, if any. */
export interface DiscoveryView {
  result?: DiscoveryResult;
  notice?: string;
  error?: string;
}

/** The configured camera already at this address, if any (host compared case-insensitively). */
export function configuredAt(device: DiscoveredDevice, cameras: readonly SetupCamera[]): string | undefined {
  const host = device.address.toLowerCase();
  return cameras.find((c) => String(c.entry['host'] ?? '').toLowerCase() === host)?.id;
}

/**
 * vendor_a is the ONVIF plate camera we pull from; vendor_b consoles do not answer ONVIF probes.
 * Any other ONVIF device is taken for an ordinary camera whose plates this device reads: it
 * answers GetSnapshotUri, so host and port are all the form needs (docs/ordinary-cameras.md).
 */
function vendorFor(device: DiscoveredDevice): string {
  const who = `${device.manufacturer ?? ''} ${device.name ?? ''}`.toLowerCase();
  if (/hikvision|hikv/.test(who)) return 'vendor_a';
  return 'snapshot';
}

/** Add-camera form values for a found device: address, port, a readable id and name. */
export function prefill(device: DiscoveredDevice): CameraFormValues {
  const id = `cam-${device.address.replace(/[^0-9A-Za-z]+/g, '-')}`.slice(0, 60);
  const name = [device.manufacturer, device.model].filter(Boolean).join(' ');
  const vendor = vendorFor(device);
  return {
    id,
    ...(name ? { name } : {}),
    vendor,
    mode: 'pull',
    host: device.address,
    ...(device.port !== undefined ? { port: String(device.port) } : {}),
  };
}

export function discoverySection(view: DiscoveryView | undefined, cameras: readonly SetupCamera[], cameraForm: (values: CameraFormValues) => Html): Html {
  const result = view?.result;
  return html`<h3>Find cameras on the network</h3>
<p><small>Sends an ONVIF discovery probe on this appliance's local network and lists what answers within a few seconds.</small></p>
<form method="post" action="/setup/discover"><button type="submit">Find cameras</button></form>
${errorBox(view?.error)}${noticeBox(view?.notice)}
${result ? resultTable(result, cameras, cameraForm) : ''}`;
}

function resultTable(result: DiscoveryResult, cameras: readonly SetupCamera[], cameraForm: (values: CameraFormValues) => Html): Html {
  if (result.interfaces.length === 0) return html`<p class="bad">No local network interface to search from.</p>`;
  if (result.devices.length === 0) {
    return html`<p id="discovery-empty">No camera answered. Check that the cameras are powered, on this network, and have ONVIF discovery switched on; or add one by address below.</p>`;
  }
  const rows = result.devices.map((d) => {
    const existing = configuredAt(d, cameras);
    return html`<tr class="found"><td data-label="address">${d.address}${d.port !== undefined ? `:${d.port}` : ''}</td><td data-label="manufacturer">${d.manufacturer ?? 'unknown'}</td><td data-label="model">${d.model ?? 'unknown'}</td>
<td data-label="already configured">${existing ? html`yes (<code>${existing}</code>)` : 'no'}</td>
<td>${existing ? '' : html`<details><summary>Add this camera</summary>${cameraForm(prefill(d))}</details>`}</td></tr>`;
  });
  return html`<table id="discovery-results"><thead><tr><th>address</th><th>manufacturer</th><th>model</th><th>already configured</th><th></th></tr></thead>${rows}</table>`;
}
