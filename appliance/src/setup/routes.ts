import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { DiagnosticsSnapshot } from '../diagnostics/snapshot.ts';
import { ApplianceError, type ApplianceErrorCode } from '../errors.ts';
import type { Discovery } from '../discovery/discovery.ts';
import { createLanDiscovery } from '../discovery/lan-discovery.ts';
import { sameOriginPosts } from '../http/csrf.ts';
import { knownHostOnly, lanOnly, socketAddress, type AddressOf } from '../http/request-guards.ts';
import type { HeartbeatState } from '../lifecycle/heartbeat-state.ts';
import { createAttemptLimiter, DEFAULT_ATTEMPT_LIMITS, type AttemptLimits } from './attempt-limiter.ts';
import { parseCameraForm } from './camera-form.ts';
import { renderDiagnosticsPage } from './diagnostics-page.ts';
import { enroll, type Claimed, type EnrollDeps } from './enroll.ts';
import { probeCamera, type ProbeReport } from './probe.ts';
import { configuredAt } from './discovery-section.ts';
import { formValuesOf } from './camera-form.ts';
import { renderSetupPage, type SetupView } from './setup-page.ts';
import { probeSnapshotCamera, type FrameTest } from './snapshot-probe.ts';
import type { FrameReader } from '../reader/types.ts';

/**
 * The local setup interface on port 8080 (docs/setup-page.md): before the
 * claim, `/` is the setup page and `/setup/*` take forms (or JSON); after it, `/` is
 * read-only diagnostics and every `/setup/*` answers 410. Routes validate, call one verb
 * and render; docs/setup-page.md. A refusal is an ApplianceError for a JSON client (the
 * edge renders its body) and the page with the message beside the form for a browser.
 */
export interface SetupDeps extends EnrollDeps {
  /** main's view: 'claimed' once credentials are loaded (also true after a claim made here). */
  state(): 'unclaimed' | 'claimed';
  /** Pre-filled hub URL (the local config's hub_url). */
  defaultHubUrl?: string;
  /** Peer address; default the TCP socket's. Injected by tests. */
  addressOf?: AddressOf;
  attemptLimits?: AttemptLimits;
  snapshot?: () => DiagnosticsSnapshot;
  heartbeat?: () => HeartbeatState | undefined;
  /** Host names besides IP literals, localhost and *.local under which the page may be opened. */
  hostNames?: readonly string[];
  /** "Find cameras" (WS-Discovery); default the ONVIF probe on the LAN interfaces. */
  discovery?: Discovery;
  /** A camera was added (main may restart its runners). */
  onCamerasChanged?: () => Promise<void> | void;
  /** The plate reader ordinary cameras use: "Test" of such a camera reads one frame with it. */
  reader?: FrameReader;
}

type Body = Record<string, unknown>;
const SETUP_BODY_LIMIT = 16 * 1024;

export function setupRoutes(deps: SetupDeps): Hono {
  const app = new Hono();
  const addressOf = deps.addressOf ?? socketAddress;
  const limiter = createAttemptLimiter(() => deps.clock.now().getTime(), deps.attemptLimits ?? DEFAULT_ATTEMPT_LIMITS);
  const probes = new Map<string, ProbeReport>();
  // The last test frame of each ordinary camera: one JPEG per camera, replaced by the next test.
  const frames = new Map<string, FrameTest>();
  const discovery = deps.discovery ?? createLanDiscovery({ now: () => deps.clock.now().getTime(), log: deps.log });
  let claimedHere: Claimed | undefined;
  let enrolling = false;
  const isClaimed = (): boolean => claimedHere !== undefined || deps.state() === 'claimed';

  // Scoped to our paths: mounted at '/', a '*' middleware would also guard camera pushes.
  for (const path of ['/', '/setup/*']) {
    app.use(path, lanOnly(addressOf), knownHostOnly(deps.hostNames ?? []));
  }
  app.use('/setup/*', async (c, next) => {
    if (isClaimed()) throw new ApplianceError('gone', 'already claimed');
    await next();
  });
  app.use('/setup/*', bodyLimit({ maxSize: SETUP_BODY_LIMIT }), sameOriginPosts());

  const wantsJson = (c: Context): boolean => (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/json');
  const readBody = async (c: Context): Promise<Body> => {
    if (wantsJson(c)) {
      const body: unknown = await c.req.json().catch(() => undefined);
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Body) : {};
    }
    return (await c.req.parseBody()) as Body;
  };
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');

  async function page(c: Context, status: number, extra: Partial<SetupView> = {}): Promise<Response> {
    let hardwareId: string | undefined;
    try {
      hardwareId = await deps.identity();
    } catch {
      hardwareId = undefined;
    }
    const cameras = await deps.cameras.list();
    const snapshot = deps.snapshot?.();
    const statusLines: [string, string][] = [
      ['State', 'not claimed'],
      ...(snapshot?.warnings ?? []).map((w): [string, string] => ['Warning', w]),
      ['Cameras configured', String(cameras.length)],
      ...(snapshot ? ([['Buffered detections', String(snapshot.buffer.states.pending ?? 0)]] as [string, string][]) : []),
      ...(snapshot?.cameras ?? []).map((cam): [string, string] => [`Camera ${cam.id}`, `${cam.state}${cam.lastError ? `: ${cam.lastError}` : ''}`]),
      ...(snapshot?.cameras ?? []).flatMap((cam) => (cam.clock?.warnings ?? []).map((w): [string, string] => ['Warning', `camera ${cam.id}: ${w}`])),
    ];
    const last = discovery.last();
    const view: SetupView = {
      hardwareId,
      hubUrl: deps.defaultHubUrl,
      cameras,
      probes,
      frames,
      status: statusLines,
      ...(last ? { discovery: { result: last } } : {}),
      ...extra,
    };
    return c.html(renderSetupPage(view), status as 200);
  }

  app.get('/', async (c) => {
    if (!isClaimed()) return page(c, 200);
    const claimed = claimedHere
      ? {
          collectorId: claimedHere.collectorId,
          keyPrefix: claimedHere.keyPrefix,
          hubUrl: claimedHere.hubUrl,
          ...(claimedHere.hubCertificateSha256 ? { hubCertificateSha256: claimedHere.hubCertificateSha256 } : {}),
        }
      : undefined;
    return c.html(renderDiagnosticsPage({ snapshot: deps.snapshot?.(), heartbeat: deps.heartbeat?.(), claimed }));
  });

  for (const kind of ['claim', 'provision'] as const) {
    const secretField = kind === 'claim' ? 'claim_code' : 'provisioning_token';
    app.post(`/setup/${kind}`, async (c) => {
      const json = wantsJson(c);
      const body = await readBody(c);
      const hubUrl = str(body['hub_url']).trim() || (deps.defaultHubUrl ?? '');
      const secret = str(body[secretField]);
      const certificateSha256 = str(body['hub_certificate_sha256']).trim().slice(0, 200);
      const refuse = (
        status: number,
        code: ApplianceErrorCode,
        message: string,
        headers: Record<string, string> = {},
        presentedSha256?: string,
      ): Promise<Response> => {
        if (json) throw new ApplianceError(code, message, { status, headers });
        for (const [name, value] of Object.entries(headers)) c.header(name, value);
        const form = kind === 'claim' ? { claim: { code: secret, error: message } } : { provision: { token: secret, error: message } };
        return page(c, status, { hubUrl, ...form, certificate: { typed: certificateSha256, ...(presentedSha256 ? { presented: presentedSha256 } : {}) } });
      };
      const decision = limiter.take(addressOf(c) ?? 'unknown');
      if (!decision.allowed) {
        const message = `Too many attempts from this computer. Try again in ${decision.retryAfterSeconds} s.`;
        return refuse(429, 'rate_limited', message, { 'Retry-After': String(decision.retryAfterSeconds) });
      }
      if (enrolling) return refuse(409, 'conflict', 'A claim is already in progress; wait for it to finish.');
      enrolling = true;
      let outcome;
      try {
        outcome = await enroll(deps, { kind, hubUrl, secret, ...(certificateSha256 ? { certificateSha256 } : {}) });
      } finally {
        enrolling = false;
      }
      if (!outcome.ok) {
        const headers: Record<string, string> = outcome.retryAfterSeconds !== undefined ? { 'Retry-After': String(outcome.retryAfterSeconds) } : {};
        return refuse(outcome.status, outcome.code, outcome.message, headers, outcome.presentedSha256);
      }
      claimedHere = outcome.claimed;
      const { collectorId, keyPrefix, hubUrl: centralUrl, hubCertificateSha256 } = outcome.claimed;
      return json
        ? c.json(
            {
              claimed: true,
              collector_id: collectorId,
              key_prefix: keyPrefix,
              hub_url: centralUrl,
              ...(hubCertificateSha256 ? { hub_certificate_sha256: hubCertificateSha256 } : {}),
            },
            200,
          )
        : c.redirect('/', 303);
    });
  }

  app.post('/setup/cameras', async (c) => {
    const json = wantsJson(c);
    const form = parseCameraForm(await readBody(c));
    const refuse = (code: ApplianceErrorCode, errors: string[], values = form.values): Promise<Response> => {
      const error = new ApplianceError(code, errors.join('; '));
      if (json) throw error;
      return page(c, error.status, { camera: { values, errors } });
    };
    if (!form.ok) return refuse('bad_request', form.errors);
    try {
      await deps.cameras.add(form.entry, form.credentials);
    } catch (error) {
      if (error instanceof ApplianceError) return refuse(error.code, [error.message]);
      throw error;
    }
    deps.log.info({ camera_id: form.camera.id, vendor: form.camera.vendor, host: form.camera.host }, 'camera added on the setup page');
    await deps.onCamerasChanged?.();
    return json ? c.json({ id: form.camera.id }, 201) : c.redirect('/', 303);
  });

  app.post('/setup/discover', async (c) => {
    const outcome = await discovery.run();
    if (!outcome.ok) {
      const retryAfter = { 'Retry-After': String(outcome.retryAfterSeconds) };
      const message = `A search ran moments ago; try again in ${outcome.retryAfterSeconds} s.`;
      if (wantsJson(c)) throw new ApplianceError('rate_limited', message, { headers: retryAfter });
      c.header('Retry-After', retryAfter['Retry-After']);
      return page(c, 429, { discovery: { ...(outcome.last ? { result: outcome.last } : {}), error: message } });
    }
    const { devices, interfaces } = outcome.result;
    if (wantsJson(c)) {
      const cameras = await deps.cameras.list();
      return c.json({ interfaces, devices: devices.map((d) => ({ ...d, configured: configuredAt(d, cameras) ?? null })) }, 200);
    }
    return page(c, 200, { discovery: { result: outcome.result, notice: `${devices.length} device(s) answered.` } });
  });

  app.get('/setup/cameras/:id/edit', async (c) => {
    const id = c.req.param('id');
    const camera = (await deps.cameras.list()).find((cam) => cam.id === id);
    if (!camera) return page(c, 404, { notice: `No camera ${id}.` });
    const stored = await deps.cameras.storedCredentials(id);
    return page(c, 200, { edit: { id, values: formValuesOf(camera.entry, stored), errors: [] } });
  });

  app.post('/setup/cameras/:id', async (c) => {
    const id = c.req.param('id');
    const json = wantsJson(c);
    const stored = await deps.cameras.storedCredentials(id);
    // The id is the key of the vault entry, the cursors and the buffered rows: it does not change.
    const form = parseCameraForm({ ...(await readBody(c)), id }, stored ?? {});
    const refuse = (code: ApplianceErrorCode, errors: string[]): Promise<Response> => {
      const error = new ApplianceError(code, errors.join('; '));
      if (json) throw error;
      return page(c, error.status, { edit: { id, values: form.values, errors } });
    };
    if (!(await deps.cameras.list()).some((cam) => cam.id === id)) return refuse('not_found', [`no camera ${id}`]);
    if (!form.ok) return refuse('bad_request', form.errors);
    try {
      await deps.cameras.update(id, form.entry, form.credentials);
    } catch (error) {
      if (error instanceof ApplianceError) return refuse(error.code, [error.message]);
      throw error;
    }
    probes.delete(id);
    deps.log.info({ camera_id: id, vendor: form.camera.vendor, host: form.camera.host }, 'camera changed on the setup page');
    await deps.onCamerasChanged?.();
    return json ? c.json({ id }, 200) : c.redirect('/', 303);
  });

  app.post('/setup/cameras/:id/delete', async (c) => {
    const id = c.req.param('id');
    const json = wantsJson(c);
    try {
      await deps.cameras.remove(id);
    } catch (error) {
      if (!(error instanceof ApplianceError) || json) throw error;
      return page(c, error.status, { notice: `No camera ${id}.` });
    }
    probes.delete(id);
    deps.log.info({ camera_id: id }, 'camera removed on the setup page');
    await deps.onCamerasChanged?.();
    return json ? c.json({ removed: id }, 200) : c.redirect('/', 303);
  });

  app.post('/setup/cameras/:id/test', async (c) => {
    const id = c.req.param('id');
    let camera;
    try {
      camera = await deps.cameras.resolve(id);
    } catch (error) {
      if (!(error instanceof ApplianceError)) throw error;
      const report: ProbeReport = { cameraId: id, url: '', ok: false, summary: error.message, facts: [] };
      probes.set(id, report);
      return wantsJson(c) ? c.json(report, 200) : page(c, 200);
    }
    if (!camera) {
      if (wantsJson(c)) throw new ApplianceError('not_found', `no camera ${id}`);
      return page(c, 404, { notice: `No camera ${id}.` });
    }
    if (camera.vendor === 'snapshot') {
      const tested = await probeSnapshotCamera(camera, deps.reader);
      probes.set(id, tested.report);
      if (tested.frame) frames.set(id, tested.frame);
      else frames.delete(id);
      const plates = tested.frame?.plates ?? [];
      return wantsJson(c)
        ? c.json({ ...tested.report, plates, ...(tested.frame ? { width: tested.frame.width, height: tested.frame.height } : {}) }, 200)
        : page(c, 200);
    }
    const report = await probeCamera(camera);
    probes.set(id, report);
    return wantsJson(c) ? c.json(report, 200) : page(c, 200);
  });

  // The frame the last "Test" of an ordinary camera read, shown on the page under its plate boxes.
  app.get('/setup/cameras/:id/frame.jpg', (c) => {
    const frame = frames.get(c.req.param('id'));
    if (!frame) throw new ApplianceError('not_found', 'no test frame for this camera: press Test first');
    return c.body(Buffer.from(frame.jpeg), 200, { 'content-type': 'image/jpeg', 'cache-control': 'no-store' });
  });

  return app;
}
