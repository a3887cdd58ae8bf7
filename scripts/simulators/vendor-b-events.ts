import { normalizedPlate, pick, randomInt } from './plates.ts';
import type { PlateRead, Rng } from './plates.ts';

/**
 * vendor_b event objects and their lifecycle (docs/camera-formats.md "vendor_b event object",
 * "vendor_b plate location", "vendor_b updates WebSocket"): an `add` without plate and with
 * `end: null`, an `update` with the plate metadata, an `update` with `end`. Pure builders; the NVR
 * simulator applies the patches and broadcasts them.
 */

export interface NvrCamera {
  id: string;
  /** Upper-case hex without separators, as the bootstrap prints it. */
  mac: string;
  name: string;
}

export type JsonObject = Record<string, unknown>;

export interface NvrEvent extends JsonObject {
  id: string;
  modelKey: 'event';
  type: string;
  start: number;
  end: number | null;
  smartDetectTypes: string[];
  camera: string;
  metadata: JsonObject;
}

/** The event as first announced: a vehicle is being tracked, no plate yet. */
export function eventAdd(id: string, camera: NvrCamera, startMs: number, type: string): NvrEvent {
  return {
    id,
    modelKey: 'event',
    type,
    start: startMs,
    end: null,
    score: 0,
    smartDetectTypes: type === 'motion' ? [] : ['vehicle'],
    smartDetectEvents: [],
    camera: camera.id,
    partition: null,
    user: null,
    metadata: {},
    thumbnail: `e-${id}`,
    heatmap: `e-${id}`,
    timestamp: null,
  };
}

const VEHICLE_TYPES: Record<string, string> = { vehicle: 'car', SUVMPV: 'suv' };

/**
 * The plate update. Protect 6.x shape (`detectedThumbnails`) unless `legacy`, then the
 * older `metadata.licensePlate`. Unknown reads carry an empty name (drop them).
 */
export function platePatch(read: PlateRead, camera: NvrCamera, legacy: boolean, rng: Rng): JsonObject {
  const name = read.unknown ? '' : read.plate;
  const smartDetectTypes = ['vehicle', 'licensePlate'];
  if (legacy) return { smartDetectTypes, metadata: { licensePlate: { name, confidenceLevel: read.confidence } } };
  const withGroup = !read.unknown && rng() < 0.8;
  const thumbnail: JsonObject = {
    type: 'vehicle',
    name,
    confidence: randomInt(rng, 70, 99),
    clockBestWall: read.timeMs,
    coord: [randomInt(rng, 0, 500), randomInt(rng, 0, 300), 220, 140],
    objectId: `${read.seq}`,
    croppedId: `${camera.mac}-${read.timeMs}`,
    attributes: {
      vehicleType: { val: VEHICLE_TYPES[read.vehicleType] ?? pick(rng, ['car', 'sedan']), confidence: randomInt(rng, 60, 95) },
      color: { val: read.color === 'unknown' ? 'white' : read.color, confidence: randomInt(rng, 60, 95) },
      trackerId: read.seq,
      zone: [1],
    },
    ...(withGroup ? { group: { id: `g-${read.seq}`, matchedName: normalizedPlate(read.plate), confidence: read.confidence } } : {}),
  };
  return { smartDetectTypes, metadata: { detectedThumbnails: [thumbnail], zonesStatus: { '1': { level: 80, status: 'leave' } } } };
}

export const endPatch = (endMs: number, score: number): JsonObject => ({ end: endMs, score });

/** Shallow merge: an update replaces whole top-level fields (`metadata` included). */
export const applyPatch = (event: NvrEvent, patch: JsonObject): NvrEvent => ({ ...event, ...patch }) as NvrEvent;

export interface EventQuery {
  start?: number;
  end?: number;
  limit?: number;
  offset: number;
  order: 'ASC' | 'DESC';
  types: string[];
  smartDetectTypes: string[];
}

/** Parse the events query; a string is the 400 message (start needs end or limit ). */
export function parseEventQuery(params: URLSearchParams): EventQuery | string {
  const num = (k: string): number | undefined | 'bad' => {
    const v = params.get(k);
    if (v === null || v === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? n : 'bad';
  };
  const start = num('start');
  const end = num('end');
  const limit = num('limit');
  const offset = num('offset');
  if (start === 'bad' || end === 'bad' || limit === 'bad' || offset === 'bad') return 'start, end, limit and offset must be numbers';
  if (start !== undefined && end === undefined && limit === undefined) return 'start requires end or limit';
  const order = (params.get('orderDirection') ?? 'DESC').toUpperCase();
  return {
    ...(start !== undefined ? { start } : {}),
    ...(end !== undefined ? { end } : {}),
    ...(limit !== undefined ? { limit } : {}),
    offset: offset ?? 0,
    order: order === 'ASC' ? 'ASC' : 'DESC',
    types: params.getAll('types'),
    smartDetectTypes: params.getAll('smartDetectTypes'),
  };
}

export function queryEvents(events: readonly NvrEvent[], q: EventQuery): NvrEvent[] {
  const hits = events.filter(
    (e) =>
      (q.start === undefined || e.start >= q.start) &&
      (q.end === undefined || e.start <= q.end) &&
      (q.types.length === 0 || q.types.includes(e.type)) &&
      (q.smartDetectTypes.length === 0 || e.smartDetectTypes.some((t) => q.smartDetectTypes.includes(t))),
  );
  hits.sort((a, b) => (q.order === 'ASC' ? a.start - b.start : b.start - a.start));
  return hits.slice(q.offset, q.limit === undefined ? undefined : q.offset + q.limit);
}
