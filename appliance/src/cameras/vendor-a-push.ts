import { Hono } from 'hono';
import type { Context } from 'hono';
import { parseWith } from '@alpr/shared/adapters/factory';
import type { RoutedOutcome } from '@alpr/shared/adapters/factory';
import { ADAPTER_TYPES, isReaderType } from '@alpr/shared/adapters/types';
import type { ReaderType } from '@alpr/shared/adapters/types';
import { CAMERA_QUERY, readerCameraFor, readerContext } from './reader-camera.ts';
import type { AdapterContext, AdapterType, CameraIdentity, ParseInput } from '@alpr/shared/adapters/types';
import { contextOf } from './config.ts';
import type { CameraConfig } from './config.ts';
import { deliver, reportIssues } from './deliver.ts';
import { ApplianceError, isSinkRefused } from '../errors.ts';
import { errorHandler } from '../http/edge.ts';
import type { CameraLog, Clock, DetectionSink } from './ports.ts';
import { createStatusTracker } from './status.ts';
import type { CameraStatusTracker } from './status.ts';
import { readCappedBody } from './body.ts';
import { clockWarning, correctCaptureTime, withCapturedAt } from './camera-clock.ts';
import { createPushClock, type PushClock } from './push-clock.ts';
import type { ParsedDetection } from '@alpr/shared/adapters/types';
import { PUSH_ROUTE } from '../http/local-paths.ts';

/**
 * Camera push receiver (docs/ingest.md), mounted on the appliance's port 8080:
 * `POST /api/v1/ingest/{vendor_a|vendor_b|auto}`. vendor_a cameras post
 * `EventNotificationAlert` XML or multipart with the JPEGs (docs/camera-formats.md "vendor_a push
 * document", "vendor_a push transport"); a relay may post vendor_b event JSON
 * (docs/camera-formats.md "vendor_b event object").
 *
 * The camera is answered 2xx only after the sink committed every detection (docs/buffer.md:
 * a detection is acknowledged to the camera only after its insert commits): otherwise 503, and the
 * camera re-uploads (docs/camera-formats.md "vendor_a push document" `activePostCount`). A post
 * without a plate (motion, `unknown`) gets 200 so the camera does not retry it; an unreadable one
 * 400 (a retry would not help).
 *
 * Refusals are thrown as `ApplianceError` with a code of the appliance's closed set
 * (errors.ts) and rendered by the edge's one `errorHandler` (http/edge.ts). This app installs
 * that same handler itself, so it answers alike when served alone (tests, benchmarks).
 */

/** An alert is a few KB, a multipart post with three pictures about 200 KB. */
export const DEFAULT_MAX_PUSH_BYTES = 2 * 1024 * 1024;

export interface IngestDeps {
  /** The configured cameras, read per request: cameras are added at runtime. */
  cameras: () => readonly CameraConfig[];
  sink: DetectionSink;
  log: CameraLog;
  clock: Clock;
  /** vendor_b camera id -> identity (MAC), from the running vendor_b runners' bootstraps. */
  vendorBCameras?: () => ReadonlyMap<string, CameraIdentity>;
  /** The status tracker of a configured camera, so pushes show in diagnostics. */
  statusOf?: (cameraId: string) => CameraStatusTracker | undefined;
  maxBodyBytes?: number;
  /**
   * Trust check once the camera is known by its MAC (source-address pinning, shared
   * secret; runtime/ingest-admission.ts): throws an ApplianceError to refuse the push before
   * anything is stored or counted.
   */
  admit?: (camera: CameraConfig | undefined, c: Context) => Promise<void>;
}

/**
 * The configured camera a payload came from, by the MAC a context-free parse found in it
 * (vendor_a `macAddress`). Unknown cameras are still accepted, with no timezone or
 * direction mapping: losing a read is worse than a read with an unmapped direction.
 */
function cameraFor(outcome: RoutedOutcome, cameras: readonly CameraConfig[]): CameraConfig | undefined {
  const macs = new Set(outcome.detections.map((d) => d.detection.camera.mac));
  return cameras.find((c) => c.vendor === outcome.adapter && c.mac !== undefined && macs.has(c.mac));
}

function contextFor(adapter: AdapterType | undefined, camera: CameraConfig | undefined, deps: IngestDeps): AdapterContext {
  const base: AdapterContext = camera ? contextOf(camera) : {};
  if (adapter !== 'vendor_b') return base;
  const cameras = new Map(deps.vendorBCameras?.() ?? []);
  // A vendor_b entry pinned to one NVR camera id with a MAC maps that id too.
  for (const c of deps.cameras()) {
    const only = c.cameraIds?.length === 1 ? c.cameraIds[0] : undefined;
    if (c.vendor === 'vendor_b' && only !== undefined && c.mac && !cameras.has(only)) cameras.set(only, { id: only, mac: c.mac });
  }
  // vendor_b events name their camera by NVR id: no single-camera fallback.
  return { cameras };
}

/**
 * Capture times in true time for a push camera whose clock is off (push-clock.ts estimates
 * it from capture versus arrival; camera-clock.ts corrects). The camera's own time stays in
 * `raw.camera_time`.
 */
export function correctPushed(items: ParsedDetection[], clock: PushClock, status: CameraStatusTracker, nowMs: number): ParsedDetection[] {
  for (const item of items) clock.observe(Date.parse(item.detection.timestamp), nowMs);
  const offset = clock.current();
  if (offset === null) return items;
  status.clock({
    offsetMs: Math.round(offset),
    source: 'reads',
    checkedAt: new Date(nowMs).toISOString(),
    utcOffset: null,
    warnings: [clockWarning(offset)].filter((w): w is string => w !== null),
  });
  return items.map((item) => {
    const fixed = correctCaptureTime(Date.parse(item.detection.timestamp), offset, clock.previous(), nowMs);
    if (!fixed.corrected) return item;
    status.count('timesCorrected');
    return withCapturedAt(item, fixed.ms);
  });
}

export function createIngestApp(deps: IngestDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.log));
  const maxBytes = deps.maxBodyBytes ?? DEFAULT_MAX_PUSH_BYTES;
  // Per pushing camera (configured id, or the id its payload names), for this process's life.
  const clocks = new Map<string, PushClock>();
  const clockOf = (id: string): PushClock => {
    let clock = clocks.get(id);
    if (!clock) {
      if (clocks.size >= 1_000) clocks.delete(clocks.keys().next().value as string);
      clock = createPushClock();
      clocks.set(id, clock);
    }
    return clock;
  };

  app.post(PUSH_ROUTE, async (c: Context) => {
    const vendor = c.req.param('vendor') ?? '';
    if (vendor !== 'auto' && !(ADAPTER_TYPES as readonly string[]).includes(vendor)) {
      throw new ApplianceError('not_found', `no adapter ${vendor.slice(0, 40)}`);
    }
    const body = await readCappedBody(c.req.raw, maxBytes);
    if (!body.ok) {
      if (body.reason === 'aborted') throw new ApplianceError('bad_request', 'the request body was cut off');
      throw new ApplianceError('payload_too_large', `body above ${maxBytes} bytes`);
    }
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const contentType = c.req.header('content-type');
    const input: ParseInput = { body: body.bytes, headers, ...(contentType ? { contentType } : {}) };
    const type = vendor as AdapterType | 'auto';
    // Plate readers (reader-camera.ts) may name our camera in the URL: `?camera=<id>`.
    const named = c.req.query('camera');
    if (named !== undefined && !CAMERA_QUERY.test(named)) {
      throw new ApplianceError('bad_request', 'camera: 1-64 of A-Z a-z 0-9 . _ -');
    }
    const readerNamed = (adapter: AdapterType | undefined): adapter is ReaderType => adapter !== undefined && isReaderType(adapter);

    const firstContext = readerNamed(type === 'auto' ? undefined : type)
      ? readerContext(undefined, named)
      : contextFor(type === 'auto' ? undefined : type, undefined, deps);
    const first = parseWith(type, input, firstContext);
    const reader = readerNamed(first.adapter) ? first.adapter : undefined;
    const camera = reader ? readerCameraFor(reader, first, deps.cameras(), named) : cameraFor(first, deps.cameras());
    await deps.admit?.(camera, c);
    const outcome = reader
      ? camera
        ? parseWith(reader, input, readerContext(camera, named))
        : first
      : camera || first.adapter === 'vendor_b'
        ? parseWith(first.adapter ?? type, input, contextFor(first.adapter, camera, deps))
        : first;
    const source = camera?.id ?? outcome.detections[0]?.detection.camera.id ?? 'push';
    const status =
      (camera ? deps.statusOf?.(camera.id) : undefined) ??
      createStatusTracker({ id: source, name: source, vendor: outcome.adapter ?? 'vendor_a', mode: 'push' }, deps.clock);

    reportIssues(outcome, { source, status, log: deps.log });
    if (outcome.failure !== undefined) throw new ApplianceError('unparseable', outcome.failure);
    if (outcome.detections.length === 0 && outcome.errors.length > 0) {
      throw new ApplianceError('unparseable', outcome.errors[0]?.reason ?? 'no readable detection');
    }
    status.online();
    try {
      const detections = correctPushed(outcome.detections, clockOf(source), status, deps.clock.now());
      const summary = await deliver(detections, { source, sink: deps.sink, status, log: deps.log });
      return c.json({ accepted: summary.accepted, duplicates: summary.counts.duplicate, ignored: outcome.ignored }, 200);
    } catch (error) {
      if (!isSinkRefused(error)) throw error;
      deps.log.error({ camera: source, error: error.message }, 'push not committed; camera told to retry');
      throw new ApplianceError('sink_refused', 'detection not stored; retry later', { headers: { 'retry-after': '5' }, cause: error });
    }
  });

  return app;
}
