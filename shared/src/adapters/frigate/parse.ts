import type { AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { normalizePlateText } from '../../detection/normalize.ts';
import { CONTROL, addRead, cameraOf, firstIssue, readJsonObject, readerTime } from '../reader/common.ts';
import { frigateEventSchema } from './schema.ts';
import type { FrigateObject } from './schema.ts';

export const SOURCE = 'frigate';

/** Labels that carry plates; a sub label on a person is a face name, never a plate. */
const VEHICLE_LABELS = new Set(['car', 'motorcycle', 'bus', 'truck', 'bicycle', 'license_plate']);

/** Frigate's own snapshot of the event (served while the event is kept; `has_snapshot`). */
export const snapshotPath = (eventId: string): string => `/api/events/${encodeURIComponent(eventId)}/snapshot.jpg`;

/**
 * The plate of a tracked object: Frigate's own recognition (0.16+, `recognized_license_plate`)
 * first; else, for a vehicle, the sub label an outside recognizer set (older setups). Frigate
 * 0.16 puts a known plate's owner name ("John's Car") in the sub label, so a sub label is only
 * taken when there is no recognized plate field at all and it normalizes to a plate.
 */
export function plateOf(after: FrigateObject): { text: string; score: number | undefined; from: 'lpr' | 'sub_label' } | undefined {
  if (typeof after.recognized_license_plate === 'string' && after.recognized_license_plate.trim() !== '') {
    return { text: after.recognized_license_plate, score: after.recognized_license_plate_score ?? undefined, from: 'lpr' };
  }
  if (after.recognized_license_plate !== undefined && after.recognized_license_plate !== null) return undefined;
  if (!VEHICLE_LABELS.has(after.label ?? '')) return undefined;
  const sub = after.sub_label;
  const [text, score] = typeof sub === 'string' ? [sub, undefined] : Array.isArray(sub) ? [sub[0], sub[1] ?? undefined] : [undefined, undefined];
  if (text === undefined || CONTROL.test(text)) return undefined;
  const normalized = normalizePlateText(text);
  // A name such as "John's Car" normalizes to JOHNSCAR: 8 letters, plate-shaped. Names carry a
  // space or an apostrophe far more often than plates carry anything but letters, digits, `-`.
  if (!normalized || /[^A-Za-z0-9 -]/.test(text)) return undefined;
  return { text, score: typeof score === 'number' ? score : undefined, from: 'sub_label' };
}

/**
 * The dedupe key of a Frigate read: one read per event and plate (docs/readers.md "Frigate"). The
 * same plate in every later `update` and in the `end` of the event is the same read; a plate
 * Frigate corrects mid-event is a second read under its own key.
 */
export const frigateReadKey = (eventId: string, plate: string): string => `${SOURCE}:${eventId}:${normalizePlateText(plate) ?? ''}`;

/** One `frigate/events` message -> at most one read (pure; the runner drops repeats by key). */
export function parseFrigateEvent(input: ParseInput, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const object = readJsonObject(input);
  if (!object.ok) return { ...outcome, failure: object.reason };
  const event = frigateEventSchema.safeParse(object.value);
  if (!event.success) return { ...outcome, failure: firstIssue(event.error, 'event') };
  const after = event.data.after;
  const plate = after.false_positive === true ? undefined : plateOf(after);
  if (!plate) {
    outcome.ignored += 1;
    return outcome;
  }
  const camera = cameraOf(SOURCE, after.camera, context);
  addRead(
    outcome,
    0,
    {
      vendor: SOURCE,
      sourceId: frigateReadKey(after.id, plate.text),
      // The frame the object was last seen in; the event's start when a message lacks it.
      timestamp: readerTime(after.frame_time ?? after.snapshot_time ?? after.start_time),
      cameraId: camera.id,
      cameraMac: camera.mac,
      plateText: plate.text,
      confidence: plate.score !== undefined && plate.score >= 0 && plate.score <= 1 ? plate.score : undefined,
    },
    { plate: plate.text, event: after.id, from: plate.from, label: after.label ?? '' },
  );
  const read = outcome.detections[0];
  if (read && after.has_snapshot !== false) read.fetchImages.push({ kind: 'full_scene', path: snapshotPath(after.id) });
  return outcome;
}

/** Frigate events arrive over MQTT, never by the `auto` route. */
export const recognizesFrigate = (): boolean => false;
