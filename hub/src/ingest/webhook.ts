import { checkImageContent } from '@alpr/shared/detection/image-content';
import { parseWith, type RoutedOutcome } from '@alpr/shared/adapters/factory';
import { readerMac } from '@alpr/shared/adapters/reader/common';
import { isReaderType, type AdapterContext, type AdapterType, type CameraIdentity, type ParseInput } from '@alpr/shared/adapters/types';
import type { BatchItemResult, ImageRef } from '@alpr/shared/protocol/batch';
import { IMAGE_KINDS } from '@alpr/shared/detection/schema';
import { HubError } from '../platform/errors.ts';
import { sha256Hex } from '../images/image-store.ts';
import { countDetections } from '../platform/hub-metrics.ts';
import { storeBatch, type IngestDeps } from './store-batch.ts';

/**
 * A direct camera push to the hub (central mode, push only): `POST /api/v1/ingest/{vendor}`
 * and `/ingest/auto`. The payload is parsed by the same shared adapters the appliance uses
 * and stored through the same batch verb, so a webhook detection is chained, deduplicated
 * and queued for alerts exactly like an uploaded one.
 */
export interface WebhookInput {
  collectorId: string;
  vendor: AdapterType | 'auto';
  body: Uint8Array;
  contentType: string | undefined;
  /** Lowercased request headers (the `auto` route looks at vendor headers). */
  headers: Readonly<Record<string, string>>;
  /** Camera named in the webhook URL (`mac`, `camera`): for payloads without a MAC (vendor_b). */
  camera: CameraIdentity;
}

export interface WebhookResponse {
  accepted: number;
  results: BatchItemResult[];
}

export async function ingestWebhook(deps: IngestDeps, input: WebhookInput): Promise<WebhookResponse> {
  const parseInput: ParseInput = { body: input.body, contentType: input.contentType, headers: input.headers };
  const baseContext: AdapterContext = hasIdentity(input.camera) ? { camera: input.camera } : {};
  let outcome = parseWith(input.vendor, parseInput, baseContext);
  if (outcome.failure !== undefined) throw new HubError('bad_request', oneLine(outcome.failure));

  // A registered camera's timezone decides how local camera times (vendor_a) read; the MAC
  // is only known after a first parse, so parse again when the camera is registered.
  const macs = new Set(outcome.detections.map((d) => d.detection.camera.mac));
  if (input.camera.mac) macs.add(input.camera.mac);
  if (macs.size === 1) {
    const [mac] = [...macs];
    const registered = mac === undefined ? undefined : await registeredCamera(deps, input.collectorId, mac);
    if (registered) {
      const context: AdapterContext = {
        ...baseContext,
        timezone: registered.timezone,
        camera: { ...input.camera, mac: registered.mac, name: registered.name },
      };
      outcome = parseWith(input.vendor, parseInput, context);
      if (outcome.failure !== undefined) throw new HubError('bad_request', oneLine(outcome.failure));
    }
  }
  logOutcome(deps, input, outcome);
  refuseAnonymousReads(input, outcome);
  if (outcome.detections.length === 0 && outcome.errors.length === 0) return { accepted: 0, results: [] };

  const { items, parts, dropped } = asBatch(outcome);
  for (const drop of dropped) deps.log.warn({ collector_id: input.collectorId, ...drop }, 'webhook image part is not an image; detection kept without it');
  const stored = items.length === 0 ? { accepted: 0, results: [] } : await storeBatch(deps, { collectorId: input.collectorId, items, parts });
  // Items the adapter could not read are reported after the parsed ones; a camera retries
  // on non-2xx only, and a retry would not read them any better.
  const unreadable = outcome.errors.map((e, k): BatchItemResult => ({
    index: items.length + k,
    detection_id: null,
    status: 'rejected',
    reason: oneLine(e.reason),
  }));
  countDetections(deps.metrics, unreadable);
  return { accepted: stored.accepted, results: [...stored.results, ...unreadable] };
}

/** Parsed detections as batch items + parts, so they take the batch path unchanged. */
function asBatch(outcome: RoutedOutcome): { items: unknown[]; parts: Map<string, Uint8Array>; dropped: DroppedImage[] } {
  const parts = new Map<string, Uint8Array>();
  const dropped: DroppedImage[] = [];
  const items = outcome.detections.map((parsed, i) => {
    const images: Partial<Record<(typeof IMAGE_KINDS)[number], ImageRef>> = {};
    for (const kind of IMAGE_KINDS) {
      const bytes = parsed.images[kind];
      // A zero-length image is "no image" (shared DetectionImages); images the camera only
      // names (vendor_b thumbnails, a relayed Frigate event's snapshot path) are not fetched:
      // the hub holds no camera credentials, and the camera or Frigate sits on the site's LAN.
      if (!bytes || bytes.byteLength === 0) continue;
      // Judged by content, not by the part's label (docs/cameras.md "Image content"): the
      // read is kept without an image that is not a JPEG/PNG within the size limit.
      const verdict = checkImageContent(bytes);
      if (!verdict.ok) {
        dropped.push({ detection_id: parsed.detection.detection_id, kind, size: bytes.byteLength, reason: verdict.reason });
        continue;
      }
      const part = `w${i}-${kind}`;
      parts.set(part, bytes);
      images[kind] = { part, sha256: sha256Hex(bytes), size: bytes.byteLength };
    }
    return Object.keys(images).length > 0 ? { ...parsed.detection, images } : parsed.detection;
  });
  return { items, parts, dropped };
}

/**
 * A reader post that names no camera (a bare CodeProject.AI answer, a Snapshot upload without
 * `camera_id`) and a URL without `?camera=`/`?mac=`: the adapter would file it under a stand-in
 * camera named after the stand-in MAC of "default", the same for every such reader of the site.
 * The appliance sorts these by its camera entries; the hub has none for readers, so the post is
 * refused (400, nothing stored) with the fix in the message rather than stored under a name no
 * one chose.
 */
function refuseAnonymousReads(input: WebhookInput, outcome: RoutedOutcome): void {
  if (hasIdentity(input.camera)) return;
  const source = outcome.adapter ?? input.vendor;
  if (!isReaderType(source)) return;
  const anonymous = readerMac(source, 'default');
  if (outcome.detections.some((d) => d.detection.camera.id === anonymous)) {
    throw new HubError('bad_request', `${source} post names no camera: add ?camera=<name> to the URL`);
  }
}

interface DroppedImage {
  detection_id: string;
  kind: string;
  size: number;
  reason: string;
}

interface RegisteredCamera {
  mac: string;
  name: string;
  timezone: string;
}

async function registeredCamera(deps: IngestDeps, collectorId: string, mac: string): Promise<RegisteredCamera | undefined> {
  const [row] = await deps.db.sql<{ mac: string; name: string; timezone: string }>(
    `SELECT mac, name, timezone FROM cameras WHERE collector_id = $1::uuid AND mac = $2 LIMIT 1`,
    [collectorId, mac],
  );
  return row;
}

function hasIdentity(camera: CameraIdentity): boolean {
  return camera.mac !== undefined || camera.id !== undefined;
}

/** Reasons go into a JSON body and logs: one line, bounded. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 297)}...` : flat;
}

function logOutcome(deps: IngestDeps, input: WebhookInput, outcome: RoutedOutcome): void {
  // Never the URL: its query string holds the key (docs/ingest.md, "Webhook keys").
  const summary = {
    collector_id: input.collectorId,
    vendor: outcome.adapter ?? input.vendor,
    detections: outcome.detections.length,
    ignored: outcome.ignored,
    errors: outcome.errors.length,
  };
  if (outcome.errors.length > 0) deps.log.warn({ ...summary, first_error: outcome.errors[0]?.reason }, 'webhook items unreadable');
  else deps.log.debug(summary, 'webhook parsed');
}
