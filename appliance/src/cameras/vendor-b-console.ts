import { z } from 'zod';
import type { AdapterContext, CameraIdentity } from '@alpr/shared/adapters/types';
import { normalizeMac } from '@alpr/shared/detection/normalize';
import { baseUrlOf, verifiesTls } from './config.ts';
import type { CameraConfig } from './config.ts';
import { ApplianceError } from '../errors.ts';
import { messageOf } from './errors.ts';
import { createBearerClient } from './http/bearer.ts';
import type { BearerClient } from './http/bearer.ts';
import type { CameraResponse } from './http/transport.ts';
import { fetchImage } from './images.ts';
import type { ImageResult } from './images.ts';
import type { CameraLog, Clock, Sleep } from './ports.ts';
import { createTokenBucket } from './token-bucket.ts';

/**
 * One vendor_b console as both runners see it (docs/camera-formats.md "vendor_b auth and TLS",
 * "vendor_b pull", "vendor_b images", "vendor_b camera identity"): the bearer client, the bootstrap
 * (camera id -> MAC, `lastUpdateId`), the events query and thumbnail downloads behind one token
 * bucket, so pull and push never exceed the console's image budget together.
 */

const bootstrapSchema = z
  .object({
    cameras: z.array(z.object({ id: z.string().min(1).max(64), mac: z.string(), name: z.string().optional() }).loose()).max(1000),
    lastUpdateId: z.string().min(1).max(200).optional(),
  })
  .loose();

/** Event types that can carry plates (docs/camera-formats.md "vendor_b event object"); `types` must always be set (docs/camera-formats.md "vendor_b pull"). */
export const SMART_TYPES = ['smartDetectZone', 'smartDetectLine', 'smartDetectLoiterZone'] as const;
const EVENTS_PATH = '/proxy/protect/api/events';
export const BOOTSTRAP_PATH = '/proxy/protect/api/bootstrap';
export const UPDATES_PATH = '/proxy/protect/ws/updates';
/** Events per query; a full page is followed at once by the next one. */
export const EVENTS_PAGE = 100;

export interface EventsQuery {
  startMs: number;
  endMs: number;
  /** Pull: only events already tagged `licensePlate`; catch-up: every smart event. */
  plateOnly: boolean;
}

/**
 * The older form of the query (consoles before Protect 1.21, docs/adapters.md):
 * `type=licensePlate` instead of `types` + `smartDetectTypes`. A catch-up asks for every
 * event (no type), as it does on a current console.
 */
export function olderEventsQueryString(q: EventsQuery): string {
  const params = new URLSearchParams({ start: String(Math.trunc(q.startMs)), end: String(Math.trunc(q.endMs)) });
  if (q.plateOnly) params.set('type', 'licensePlate');
  params.set('orderDirection', 'ASC');
  params.set('limit', String(EVENTS_PAGE));
  return params.toString();
}

const CURRENT_THUMBNAIL = /^\/proxy\/protect\/api\/events\/([^/]+)\/thumbnail$/;

/** `events/{id}/thumbnail` (Protect ≥ 1.21) → `thumbnails/e-{id}` (before, docs/camera-formats.md "vendor_b images"). */
export function olderThumbnailPath(path: string): string | undefined {
  const id = CURRENT_THUMBNAIL.exec(path)?.[1];
  return id === undefined ? undefined : `/proxy/protect/api/thumbnails/e-${id}`;
}

/** What a console answers for a query parameter or a path it does not know. */
const OLDER_API_HINT = new Set([400, 404]);

export function eventsQueryString(q: EventsQuery): string {
  const params = new URLSearchParams({ start: String(Math.trunc(q.startMs)), end: String(Math.trunc(q.endMs)) });
  for (const type of SMART_TYPES) params.append('types', type);
  if (q.plateOnly) params.append('smartDetectTypes', 'licensePlate');
  params.set('orderDirection', 'ASC');
  params.set('limit', String(EVENTS_PAGE));
  return params.toString();
}

export interface VendorBConsole {
  readonly client: BearerClient;
  readonly base: string;
  /** Mutated in place by `refreshBootstrap`: adapter contexts hold this very map. */
  readonly cameras: Map<string, CameraIdentity>;
  lastUpdateId(): string | undefined;
  refreshBootstrap(): Promise<void>;
  /** Refresh when older than `bootstrapRefreshMs`, or when `unknownIds` has an id not in the map. */
  refreshIfNeeded(unknownIds?: readonly string[]): Promise<void>;
  context(): AdapterContext;
  queryEvents(q: EventsQuery): Promise<CameraResponse>;
  fetchThumbnail(path: string, signal: AbortSignal): Promise<ImageResult>;
  close(): Promise<void>;
}

export function openVendorBConsole(config: CameraConfig, deps: { clock: Clock; sleep: Sleep; log: CameraLog }): VendorBConsole {
  const client = createBearerClient({
    token: config.token ?? '',
    header: config.tokenHeader,
    rejectUnauthorized: verifiesTls(config),
    headersTimeoutMs: config.requestTimeoutMs,
    bodyTimeoutMs: config.requestTimeoutMs,
  });
  const base = baseUrlOf(config);
  const cameras = new Map<string, CameraIdentity>();
  const bucket = createTokenBucket({ ratePerSecond: config.thumbnailsPerSecond }, deps.clock.now);
  let lastUpdateId: string | undefined;
  let loadedAt = Number.NEGATIVE_INFINITY;
  // Which API generation the console speaks, learned from its answers: `current` after a
  // 200 on the current form, `older` after the current form was refused and the
  // older form answered 200. Until then both are tried.
  let queryStyle: 'unknown' | 'current' | 'older' = 'unknown';
  let thumbnailStyle: 'unknown' | 'current' | 'older' = 'unknown';

  async function get(path: string): Promise<CameraResponse> {
    try {
      return await client.request({ url: `${base}${path}` });
    } catch (error) {
      throw new ApplianceError('camera_unreachable', messageOf(error), { cause: error });
    }
  }

  async function refreshBootstrap(): Promise<void> {
    const res = await get(BOOTSTRAP_PATH);
    if (res.status !== 200) throw new ApplianceError('camera_unreachable', `bootstrap answered HTTP ${res.status}`);
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw new ApplianceError('camera_unreachable', 'bootstrap is not JSON');
    }
    const parsed = bootstrapSchema.safeParse(json);
    if (!parsed.success) throw new ApplianceError('camera_unreachable', 'bootstrap lacks cameras[] with id and mac');
    cameras.clear();
    for (const c of parsed.data.cameras) {
      const mac = normalizeMac(c.mac);
      if (mac) cameras.set(c.id, { id: c.id, mac, ...(c.name ? { name: c.name } : {}) });
    }
    lastUpdateId = parsed.data.lastUpdateId;
    loadedAt = deps.clock.now();
  }

  async function queryEvents(q: EventsQuery): Promise<CameraResponse> {
    if (queryStyle === 'older') return get(`${EVENTS_PATH}?${olderEventsQueryString(q)}`);
    const res = await get(`${EVENTS_PATH}?${eventsQueryString(q)}`);
    if (res.status === 200) queryStyle = 'current';
    if (queryStyle === 'current' || !OLDER_API_HINT.has(res.status)) return res;
    const older = await get(`${EVENTS_PATH}?${olderEventsQueryString(q)}`);
    if (older.status !== 200) return res;
    queryStyle = 'older';
    deps.log.info({ camera: config.id, status: res.status }, 'vendor_b console refuses the current events query; using type=licensePlate');
    return older;
  }

  /** A 404 on the current path is also "event not ended yet": only a 200 on the older path switches. */
  async function requestThumbnail(path: string): Promise<CameraResponse> {
    const older = olderThumbnailPath(path);
    if (thumbnailStyle === 'older' && older) return client.request({ url: `${base}${older}` });
    const res = await client.request({ url: `${base}${path}` });
    if (res.status === 200) thumbnailStyle = 'current';
    if (thumbnailStyle === 'current' || res.status !== 404 || !older) return res;
    const fallback = await client.request({ url: `${base}${older}` });
    if (fallback.status !== 200) return res;
    thumbnailStyle = 'older';
    deps.log.info({ camera: config.id }, 'vendor_b console has no events/{id}/thumbnail; using thumbnails/{id}');
    return fallback;
  }

  return {
    client,
    base,
    cameras,
    lastUpdateId: () => lastUpdateId,
    refreshBootstrap,
    async refreshIfNeeded(unknownIds = []) {
      const stale = deps.clock.now() - loadedAt >= config.bootstrapRefreshMs;
      if (stale || unknownIds.some((id) => !cameras.has(id))) await refreshBootstrap();
    },
    context: () => ({ cameras }),
    queryEvents,
    fetchThumbnail: (path, signal) =>
      fetchImage(
        requestThumbnail,
        path,
        {
          transientRetries: 1,
          transientRetryDelayMs: 200,
          notFoundWaitMs: config.thumbnailWaitMs,
          notFoundRetryMs: config.thumbnailRetryMs,
          bucket,
        },
        { clock: deps.clock, sleep: deps.sleep, signal },
      ),
    close: () => client.close(),
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Camera ids named by the events of a list reply, to spot cameras the bootstrap lacks. */
export function cameraIdsOf(events: readonly unknown[]): string[] {
  const ids = new Set<string>();
  for (const e of events) {
    if (!isRecord(e)) continue;
    const id = e.camera ?? e.cameraId ?? e.device;
    if (typeof id === 'string' && id !== '') ids.add(id);
  }
  return [...ids];
}

/** Keep detections of the configured NVR cameras only (`cameraIds`; absent = all). */
export const wantedCamera = (config: CameraConfig, cameraId: string): boolean => config.cameraIds === undefined || config.cameraIds.includes(cameraId);
