/**
 * vendor_a pull list `<Plates>` (docs/camera-formats.md "vendor_a pull"): zero or more `<Plate>`
 * entries in no guaranteed order, sometimes with an exact copy of an old entry appended. No MAC,
 * no confidence, no vehicle attributes: the MAC comes from the camera configuration and the
 * confidence is sent as not reported (0, detection/confidence.ts). `picName` (18-25 digits, > 2^53) stays a string; it is the detection id,
 * the image name and the cursor.
 *
 * The older documented variant has base64 images inside the list; no captured sample has them. We
 * accept them as optional: `<plateImage>` or `<picData>` (plate crop) and `<sceneImage>` or
 * `<fullSceneImage>` (whole scene), base64 text. Without an inline plate crop the runner
 * fetches `/doc/ui/images/plate/<picName>.jpg`.
 */
import { buildDetection } from '../../detection/build.ts';
import type { DetectionImages } from '../../detection/schema.ts';
import { CONFIDENCE_NOT_REPORTED } from '../../detection/confidence.ts';
import { normalizeDirection } from '../../detection/normalize.ts';
import { parseCameraTime } from '../../detection/time.ts';
import type { AdapterContext, ImageFetch, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import type { XmlValue } from '../xml.ts';
import { childText, childrenNamed, isElement } from '../xml.ts';
import { compareDigitStrings, PIC_NAME_PATTERN, rawFields, textualRegion, VENDOR } from './fields.ts';

export const PLATES_ROOT = 'Plates';
const INLINE_PLATE_CROP = ['plateImage', 'picData'] as const;
const INLINE_FULL_SCENE = ['sceneImage', 'fullSceneImage'] as const;

export const plateImagePath = (picName: string): string => `/doc/ui/images/plate/${picName}.jpg`;

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Strict base64 to bytes; undefined when absent, empty or not base64 (the image is optional). */
function inlineImage(entry: XmlValue, names: readonly string[]): Uint8Array | undefined {
  for (const name of names) {
    const text = childText(entry, name)?.replace(/\s+/g, '');
    if (!text || text.length % 4 !== 0 || !BASE64.test(text)) continue;
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length > 0) return new Uint8Array(bytes);
  }
  return undefined;
}

/** Parse a `<Plates>` list. `cursor` is the largest picName seen, broken entries included. */
export function parsePlates(root: XmlValue, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const seen = new Set<string>();
  childrenNamed(root, 'Plate').forEach((entry, item) => {
    if (!isElement(entry)) {
      outcome.errors.push({ item, reason: 'Plate entry has no child elements' });
      return;
    }
    const hasPicName = childrenNamed(entry, 'picName').length > 0;
    const picName = childText(entry, 'picName')?.trim();
    if (hasPicName && (picName === undefined || !PIC_NAME_PATTERN.test(picName))) {
      outcome.errors.push({ item, reason: `Plate entry with a malformed picName (${picName?.slice(0, 40) ?? 'not text'})` });
      return;
    }
    if (picName !== undefined) {
      // Advance past broken entries too: a cursor stuck before one would refetch it forever.
      if (outcome.cursor === undefined || compareDigitStrings(picName, outcome.cursor) > 0) outcome.cursor = picName;
      if (seen.has(picName)) {
        // A camera re-sent an old entry: not a new read, not an error.
        outcome.ignored += 1;
        return;
      }
      seen.add(picName);
    }
    const rawPlate = childText(entry, 'plateNumber');
    if (rawPlate === undefined) {
      outcome.errors.push({ item, reason: 'Plate entry without a <plateNumber> text' });
      return;
    }
    const captureTime = childText(entry, 'captureTime');
    const timestamp = captureTime === undefined ? undefined : parseCameraTime(captureTime, context.timezone);
    if (!timestamp) {
      outcome.errors.push({ item, reason: `Plate entry with a missing or invalid captureTime (${captureTime ?? 'absent'})` });
      return;
    }
    const country = childText(entry, 'country');
    const region = textualRegion(country);
    const built = buildDetection({
      vendor: VENDOR,
      sourceId: picName,
      timestamp,
      cameraId: context.camera?.id,
      cameraMac: context.camera?.mac,
      // A leading Chinese plate-colour character (`蓝京A12345`) is stripped by normalizePlateText.
      plateText: rawPlate,
      confidence: CONFIDENCE_NOT_REPORTED,
      direction: normalizeDirection(childText(entry, 'direction'), context.directionMapping),
      ...(region ? { region } : {}),
    });
    if (built.kind === 'no_plate') {
      outcome.ignored += 1;
      return;
    }
    if (built.kind === 'invalid') {
      outcome.errors.push({ item, reason: `Plate entry rejected: ${built.reason}` });
      return;
    }
    const images: DetectionImages = {};
    const plateCrop = inlineImage(entry, INLINE_PLATE_CROP);
    const fullScene = inlineImage(entry, INLINE_FULL_SCENE);
    if (plateCrop) images.plate_crop = plateCrop;
    if (fullScene) images.full_scene = fullScene;
    const fetchImages: ImageFetch[] = !plateCrop && picName !== undefined ? [{ kind: 'plate_crop', path: plateImagePath(picName) }] : [];
    outcome.detections.push({
      detection: built.detection,
      images,
      fetchImages,
      raw: rawFields({ plate: rawPlate, direction: childText(entry, 'direction'), country, captureTime }),
    });
  });
  return outcome;
}
