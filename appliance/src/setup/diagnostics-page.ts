import { html } from 'hono/html';
import { hubNotice } from '../diagnostics/hub-notice.ts';
import type { DiagnosticsSnapshot } from '../diagnostics/snapshot.ts';
import type { HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import { errorBox, layout, noticeBox, type Html } from './page-layout.ts';

/**
 * What `/` shows once claimed: read-only, no form (the setup interface is closed
 * after a successful claim). The key appears as its 10-character prefix only.
 */
export interface DiagnosticsView {
  snapshot: DiagnosticsSnapshot | undefined;
  heartbeat: HeartbeatState | undefined;
  /** From the claim that just happened here, until main's own sources know it. */
  /** `hubCertificateSha256`: the pinned hub certificate (docs/setup-page.md "Hub certificate"). */
  claimed: { collectorId: string; keyPrefix: string; hubUrl: string; hubCertificateSha256?: string } | undefined;
  notice?: string;
}

const iso = (ms: number | null | undefined): string => (ms === null || ms === undefined ? 'never' : new Date(ms).toISOString());

export function diagnosticsErrors(view: DiagnosticsView): string[] {
  const errors: string[] = [...(view.snapshot?.warnings ?? [])];
  if (view.heartbeat?.lastError) errors.push(`heartbeat: ${view.heartbeat.lastError}`);
  // A replaced box gets 401 too, but "rejected the API key" would send someone hunting for a key problem.
  if (view.heartbeat?.keyRejected && !view.heartbeat.replaced) errors.push('heartbeat: the hub rejected the API key');
  const uplinkError = view.snapshot?.uplink?.lastError;
  if (uplinkError) errors.push(`upload (${iso(uplinkError.atMs)}): ${uplinkError.message}`);
  for (const cam of view.snapshot?.cameras ?? []) {
    if (cam.lastError) errors.push(`camera ${cam.id} (${cam.lastErrorAt ?? '?'}): ${cam.lastError}`);
    // Camera clocks (docs/cameras.md "Camera clocks"): years off, or summer time switched off.
    for (const warning of cam.clock?.warnings ?? []) errors.push(`camera ${cam.id}: ${warning}`);
  }
  return errors;
}

export function renderDiagnosticsPage(view: DiagnosticsView): Html {
  const s = view.snapshot;
  const keyPrefix = s?.key_prefix ?? view.claimed?.keyPrefix;
  // The snapshot's, or from the heartbeat this view holds (a snapshot taken without one).
  const notice = s?.hub_notice ?? hubNotice(s?.uplink, view.heartbeat);
  const keyStatus =
    notice?.kind === 'replaced'
      ? 'refused: this box was replaced'
      : view.heartbeat?.keyRejected
        ? 'rejected by the hub'
        : (s?.uplink?.keyStatus ?? 'not used yet');
  const cameras = s?.cameras ?? [];
  const online = cameras.filter((c) => c.state === 'ONLINE').length;
  const errors = diagnosticsErrors(view);
  const uplink = s?.uplink;
  return layout(
    'ALPR appliance',
    html`<h1>ALPR appliance</h1>
${noticeBox(view.notice)}
${errorBox(notice?.message)}
<p>Claimed${view.claimed ? html` as collector <code>${view.claimed.collectorId}</code>` : ''}. The setup interface is closed; this page is read-only.</p>
<table>
<tr><th>Hub</th><td>${s?.hub_url ?? view.claimed?.hubUrl ?? 'unknown'}</td></tr>
${view.claimed?.hubCertificateSha256 ? html`<tr><th>Hub certificate (pinned SHA-256)</th><td><code>${view.claimed.hubCertificateSha256}</code></td></tr>` : ''}
<tr><th>API key</th><td>${keyPrefix ? `${keyPrefix}…` : 'none'} (${keyStatus})</td></tr>
<tr><th>Last heartbeat</th><td>${view.heartbeat?.lastOkAt ?? 'never'}${view.heartbeat && view.heartbeat.consecutiveFailures > 0 ? ` (${view.heartbeat.consecutiveFailures} failures since)` : ''}</td></tr>
<tr><th>Buffer</th><td>${s ? `${s.buffer.states.pending ?? 0} pending, ${s.buffer.states.in_flight ?? 0} in flight, ${s.buffer.rejected} rejected` : 'unknown'}</td></tr>
<tr><th>Uploads</th><td>${notice ? `${notice.kind === 'suspended' ? 'suspended by the hub' : 'stopped: replaced on the hub'}; ` : ''}${uplink ? `last success ${iso(uplink.lastSuccessAtMs)}, ${uplink.totals.batches} batches, ${uplink.totals.stored} stored, ${uplink.totals.duplicate} duplicates, ${uplink.totals.rejected} rejected` : 'not running'}</td></tr>
<tr><th>Disk cap</th><td>${s?.disk ? diskLine(s.disk) : 'unknown'}</td></tr>
<tr><th>Cameras online</th><td>${online} of ${cameras.length}</td></tr>
</table>
<h2>Cameras</h2>
<table><thead><tr><th>camera</th><th>entered on</th><th>vendor / mode</th><th>state</th><th>last read</th></tr></thead>${cameras.map(
      (c) =>
        html`<tr><td data-label="camera">${c.name}${c.name !== c.id ? html` <small>${c.id}</small>` : ''}</td><td data-label="entered on">${ENTERED_ON[c.source ?? 'unknown']}</td><td data-label="vendor / mode">${c.vendor} / ${c.mode}</td><td data-label="state">${c.state}</td><td data-label="last read">${c.lastReadAt ?? 'never'}</td></tr>`,
    )}</table>
<h2>Errors</h2>
${errors.length === 0 ? html`<p>None.</p>` : html`<ul>${errors.map((e) => html`<li>${e}</li>`)}</ul>`}
<p><small>${s?.generated_at ?? ''} &middot; <a href="/api/v1/status">JSON</a></small></p>`,
    { refreshSeconds: 10 },
  );
}

/** Which cameras the hub manages and which were set up here (docs/cameras-central.md "Precedence"). */
const ENTERED_ON = { hub: 'the hub', local: 'this device', unknown: 'not configured' } as const;

function diskLine(d: NonNullable<DiagnosticsSnapshot['disk']>): string {
  const gib = (d.cap_bytes / 1024 ** 3).toFixed(1);
  if (d.days_of_images === null) return `${gib} GiB (${d.cap_source}); days held: measuring the intake rate (10 minutes)`;
  return `${gib} GiB (${d.cap_source}): ${d.days_of_images} days of images, ${d.days_of_metadata ?? '?'} days of metadata at the current rate`;
}
