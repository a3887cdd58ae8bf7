import { INGEST_ROUTE } from '../platform/http/paths.ts';
import { Hono, type Context } from 'hono';
import { isAdapterType } from '@alpr/shared/adapters/factory';
import type { CameraIdentity } from '@alpr/shared/adapters/types';
import { MAC_PATTERN } from '@alpr/shared/detection/schema';
import { BATCH_PATHS } from '@alpr/shared/protocol/paths';
import { authenticateCollector, refuseIfSuspended, requireCollector, type CollectorEnv } from '../collectors/api-key-auth.ts';
import { clientIp } from '../platform/http/client-ip.ts';
import { nodeRequestOf } from '../platform/http/node-request.ts';
import type { PlatformDeps } from '../platform/deps.ts';
import type { ImageStore } from '../images/image-store.ts';
import type { LoadMonitor } from './load-monitor.ts';
import { HubError } from '../platform/errors.ts';
import { assertMultipartFormData, parseBatchUpload } from './batch-upload.ts';
import { createBodyBuffers, DEFAULT_BODY_BUFFER_BYTES, DEFAULT_IDLE_BODY_BUFFERS } from './body-buffers.ts';
import { readBodyLimited } from './body-limit.ts';
import { createQueueDepthRefresher } from './queue-depth.ts';
import { storeBatch, type IngestDeps } from './store-batch.ts';
import { ingestWebhook } from './webhook.ts';
import { createUploadLoad, type UploadLoad, type UploadTally } from './load-record.ts';

/**
 * Ingest routes (docs/ingest.md): the collectors' batch upload and direct camera webhooks.
 * Thin: check the request's shape, read the body under its cap, call one verb, answer.
 */
/**
 * What ingest's routes need beyond the platform: the image store and the load monitor, and
 * the upload load counts (created here when the caller has none, and set on its deps so that
 * it can flush them at shutdown, as main.ts does).
 */
export type IngestRouteDeps = PlatformDeps & { images: ImageStore; load: LoadMonitor; uploadLoad?: UploadLoad };

export function ingestRoutes(deps: IngestRouteDeps): Hono {
  const ingest: IngestDeps = {
    db: deps.db,
    images: deps.images,
    load: deps.load,
    clock: deps.clock,
    log: deps.log,
    metrics: deps.metrics,
    queueDepth: createQueueDepthRefresher(deps),
    maxCaptureAheadMs: deps.config.maxCaptureAheadSeconds * 1000,
  };
  const app = new Hono();
  const uploads = new Hono<CollectorEnv>();
  const uploadLoad = (deps.uploadLoad ??= createUploadLoad(deps));
  const bodyBuffers = createBodyBuffers({ bufferBytes: DEFAULT_BODY_BUFFER_BYTES, maxIdle: DEFAULT_IDLE_BODY_BUFFERS });

  const batch = async (c: Context<CollectorEnv>) => {
    refuseIfSuspended(c.var.collector);
    const contentType = c.req.header('content-type');
    assertMultipartFormData(contentType);
    let leased: ArrayBuffer | undefined;
    const allocate = (size: number): Uint8Array<ArrayBuffer> | undefined => {
      leased = bodyBuffers.take(size);
      return leased && new Uint8Array(leased, 0, size);
    };
    // The collector's load per minute, for the health load thresholds (docs/health.md "Load").
    const tally: UploadTally = { items: 0, rejectedItems: 0, failed: true, bytes: Number(c.req.header('content-length')) || 0 };
    try {
      const body = await readBodyLimited(c.req.raw, deps.config.maxBatchBytes, nodeRequestOf(c), allocate);
      tally.bytes = body.byteLength;
      const upload = parseBatchUpload(body, contentType, deps.config.maxBatchBytes);
      tally.items = upload.items.length;
      const response = await storeBatch(ingest, { collectorId: c.var.collector.collectorId, ...upload });
      tally.failed = false;
      tally.rejectedItems = response.results.filter((r) => r.status === 'rejected').length;
      // 202 under load: accepted all the same, the collector waits the recommended delay.
      return c.json(response, response.backpressure ? 202 : 201);
    } finally {
      // storeBatch has settled, its image writes with it: nothing refers to the body now.
      if (leased) bodyBuffers.give(leased);
      uploadLoad.add(c.var.collector.collectorId, tally);
    }
  };
  // The upload path also answers as /api/v1/events/batch (docs/protocol.md); both name one
  // operation.
  for (const path of BATCH_PATHS) uploads.post(path, requireCollector(deps), batch);
  app.route('/', uploads);

  app.post(INGEST_ROUTE, async (c) => {
    const vendor = c.req.param('vendor');
    if (vendor !== 'auto' && !isAdapterType(vendor)) throw new HubError('not_found', `no camera adapter ${vendor}`);
    // The `key` query parameter is checked exactly like an X-API-Key (docs/ingest.md).
    const collector = await authenticateCollector(deps, c.req.query('key'), clientIp(c));
    refuseIfSuspended(collector);
    const camera = cameraFromQuery(c.req.query('mac'), c.req.query('camera'));
    const body = await readBodyLimited(c.req.raw, deps.config.maxWebhookBytes, nodeRequestOf(c));
    const response = await ingestWebhook(ingest, {
      collectorId: collector.collectorId,
      vendor,
      body,
      contentType: c.req.header('content-type'),
      headers: c.req.header(),
      camera,
    });
    // Always 200 once parsed: a camera retries on anything else, and a retry of a payload
    // without a plate, or with an unreadable item, would never go better.
    return c.json(response, 200);
  });
  return app;
}

/**
 * Optional camera identity in the webhook URL, for payloads that carry none (vendor_b
 * events name a camera id, never a MAC): `?mac=7c:d8:b3:28:64:1b&camera=gate`.
 */
function cameraFromQuery(mac: string | undefined, id: string | undefined): CameraIdentity {
  const camera: CameraIdentity = {};
  if (mac !== undefined) {
    const normalized = mac.toLowerCase().replace(/[:.\-\s]/g, '');
    if (!MAC_PATTERN.test(normalized)) throw new HubError('bad_request', 'mac must be 12 hex digits');
    camera.mac = normalized;
  }
  if (id !== undefined) {
    if (id.length < 1 || id.length > 100) throw new HubError('bad_request', 'camera must be 1-100 characters');
    camera.id = id;
  }
  return camera;
}
