import { Hono } from 'hono';
import { html } from 'hono/html';
import { takeSnapshot, type DiagnosticsSources } from './snapshot.ts';
import { STATUS_PATH } from '../http/local-paths.ts';

/**
 * Read-only diagnostics on the appliance's port 8080: `GET /api/v1/status` (JSON) and `GET /`
 * (a server-rendered page that needs no JavaScript). The full setup/claim page replaces `/`
 * when the appliance lifecycle lands; the JSON stays.
 */
export function diagnosticsRoutes(sources: DiagnosticsSources): Hono {
  const app = new Hono();
  app.get(STATUS_PATH, (c) => c.json(takeSnapshot(sources)));
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.get('/', (c) => {
    const s = takeSnapshot(sources);
    const cameraRows = s.cameras.map(
      (cam) =>
        html`<tr><td>${cam.id}</td><td>${cam.state}</td><td>${JSON.stringify(cam.counters)}</td><td>${cam.lastError ?? ''}</td><td>${cam.clock ? `${Math.round(cam.clock.offsetMs / 1000)} s ${cam.clock.warnings.join('; ')}` : ''}</td></tr>`,
    );
    return c.html(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5"><title>ALPR appliance</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #ddd}</style></head>
<body><h1>ALPR appliance</h1>
${s.hub_notice ? html`<p role="alert"><strong>${s.hub_notice.message}</strong></p>` : ''}
<p>Hub: ${s.hub_url ?? 'not claimed'} &middot; key: ${s.key_prefix ? `${s.key_prefix}…` : 'none'} &middot;
key status: ${s.uplink?.keyStatus ?? 'unknown'}</p>
<h2>Buffer</h2><p>pending ${s.buffer.states.pending ?? 0}, in flight ${s.buffer.states.in_flight ?? 0}, rejected ${s.buffer.rejected}</p>
<h2>Uploads</h2><pre>${JSON.stringify(s.uplink, null, 2)}</pre>
<h2>Cameras</h2><table><tr><th>id</th><th>state</th><th>counters</th><th>last error</th><th>clock offset</th></tr>${cameraRows}</table>
<p><small>${s.generated_at} &middot; <a href="${STATUS_PATH}">JSON</a></small></p></body></html>`);
  });
  return app;
}
