import { normalizeConfidence, normalizeVehicleType } from '../../detection/normalize.ts';
import { mediaType, parseMultipart } from '../multipart.ts';
import type { AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { addRead, cameraOf, firstIssue, readJsonObject, readerTime } from '../reader/common.ts';
import { resultSchema, webhookSchema } from './schema.ts';

export const SOURCE = 'plate_recognizer';

/** Stream's webhook event and Snapshot's. Anything else (a heartbeat, a video clip) holds no read. */
export const READ_EVENTS: ReadonlySet<string> = new Set(['recognition', 'image.done']);

/**
 * The webhook body: JSON ("Data Only"), or multipart/form-data with the JSON in the `json` field
 * and the frame in `upload` ("Webhook with Image", docs/camera-formats.md "Plate Recognizer webhook").
 */
function bodyOf(input: ParseInput): { json: ParseInput; image?: Uint8Array } | { failure: string } {
  if (mediaType(input.contentType) !== 'multipart/form-data') return { json: input };
  const parts = parseMultipart(input.body, input.contentType, { maxParts: 8 });
  if (!parts.ok) return { failure: `multipart: ${parts.reason}` };
  const json = parts.parts.find((p) => p.name === 'json');
  if (!json) return { failure: 'multipart without a json field' };
  const upload = parts.parts.find((p) => p.name === 'upload' && p.body.length > 0);
  return { json: { body: json.body }, ...(upload ? { image: upload.body } : {}) };
}

export function parsePlateRecognizer(input: ParseInput, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const body = bodyOf(input);
  if ('failure' in body) return { ...outcome, failure: body.failure };
  const object = readJsonObject(body.json);
  if (!object.ok) return { ...outcome, failure: object.reason };
  const hook = webhookSchema.safeParse(object.value);
  if (!hook.success) return { ...outcome, failure: firstIssue(hook.error, 'webhook') };
  const { data } = hook.data;
  const event = hook.data.hook?.event;
  if (event && !READ_EVENTS.has(event)) {
    outcome.ignored += 1;
    return outcome;
  }
  const camera = cameraOf(SOURCE, data.camera_id ?? undefined, context);
  // Plate Recognizer's `timestamp` is always UTC (its local time is `timestamp_local`).
  const timestamp = readerTime(data.timestamp);
  data.results.forEach((raw, item) => {
    const result = resultSchema.safeParse(raw);
    if (!result.success) {
      outcome.errors.push({ item, reason: firstIssue(result.error, `results[${item}]`) });
      return;
    }
    const r = result.data;
    const makeModel = r.model_make?.[0];
    addRead(
      outcome,
      item,
      {
        vendor: SOURCE,
        timestamp,
        cameraId: camera.id,
        cameraMac: camera.mac,
        plateText: r.plate ?? undefined,
        confidence: normalizeConfidence(r.score, 'unit'),
        region: r.region?.code ?? undefined,
        vehicleType: normalizeVehicleType(r.vehicle?.type),
        color: r.color?.[0]?.color ?? undefined,
        brand: makeModel?.make ?? undefined,
        model: makeModel?.model ?? undefined,
        candidates: (r.candidates ?? []).map((c) => ({ text: c.plate, confidence: normalizeConfidence(c.score, 'unit') })),
      },
      { plate: r.plate ?? '', ...(event ? { event } : {}) },
    );
  });
  // The one frame of a "Webhook with Image" post is the scene of every read in it.
  if (body.image) for (const d of outcome.detections) d.images.full_scene = body.image;
  return outcome;
}

/** Recognized by its envelope: `hook` with an `event`, and `data.results`. */
export function recognizesPlateRecognizer(input: ParseInput): boolean {
  if (mediaType(input.contentType) === 'multipart/form-data') return false;
  const object = readJsonObject(input);
  if (!object.ok) return false;
  const hook = object.value.hook as Record<string, unknown> | undefined;
  const data = object.value.data as Record<string, unknown> | undefined;
  return typeof hook?.event === 'string' && Array.isArray(data?.results);
}
