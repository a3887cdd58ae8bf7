/**
 * vendor_a multipart push (docs/camera-formats.md "vendor_a push transport"): find the alert XML
 * among the parts and assign the attached JPEGs to our image kinds. Part names vary by firmware
 * (`anpr.xml`, `ANPR.xml`, `file.xml`, the event type...), so the XML part is found by content type
 * or a leading `<`, and pictures by `pictureInfo` file name/type, Content-ID or part name.
 */
import type { DetectionImages } from '../../detection/schema.ts';
import type { MultipartPart } from '../multipart.ts';
import { mediaType } from '../multipart.ts';
import type { PictureInfo } from './alert.ts';

/** vendor_a picture types (`pictureInfo/type`, also used as file names and Content-IDs). */
const PLATE_CROP = 'licenseplatepicture';
const SCENE = 'detectionpicture';
const VEHICLE = 'vehiclepicture';

function isXmlType(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  return type.endsWith('/xml') || type.endsWith('+xml');
}

function startsWithAngle(body: Uint8Array): boolean {
  for (let i = 0; i < body.length && i < 64; i++) {
    const c = body[i];
    if (c === 0x3c) return true;
    // Skip white space and a UTF-8 BOM (EF BB BF).
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a && c !== 0xef && c !== 0xbb && c !== 0xbf) return false;
  }
  return false;
}

/** The alert XML part: the first `*\/xml` part, else the first part whose body starts with `<`. */
export function findXmlPart(parts: readonly MultipartPart[]): MultipartPart | undefined {
  return (
    parts.find((part) => isXmlType(part.contentType) && part.body.length > 0) ??
    parts.find((part) => !isXmlType(part.contentType) && startsWithAngle(part.body))
  );
}

/** `licensePlatePicture.jpg` -> `licenseplatepicture`. */
const key = (value: string | undefined): string | undefined =>
  value
    ?.trim()
    .replace(/\.(jpe?g|png)$/i, '')
    .toLowerCase() || undefined;

function isImagePart(part: MultipartPart): boolean {
  const type = mediaType(part.contentType);
  // image/jpeg and image/pjpeg (seen in captures) or an untyped/binary part; never text.
  return type === '' || type.startsWith('image/') || type === 'application/octet-stream';
}

/** The picture type of one part: via a `pictureInfo` entry with its file name, else its own names. */
function pictureType(part: MultipartPart, infos: readonly PictureInfo[]): string | undefined {
  const names = [part.contentId, part.name, part.filename].map(key).filter((n): n is string => n !== undefined);
  for (const info of infos) {
    const file = key(info.fileName);
    const type = key(info.type);
    if (file && type && names.includes(file)) return type;
  }
  return names.find((name) => name === PLATE_CROP || name === SCENE || name === VEHICLE);
}

/**
 * `licensePlatePicture` -> plate_crop, `detectionPicture` (whole scene) -> full_scene, and
 * `vehiclePicture` (a vehicle crop) -> full_scene only when no scene picture came. Empty parts
 * (a capture had `Content-Length: 0`) are "no image". The first non-empty match wins.
 */
export function assignPictures(parts: readonly MultipartPart[], xmlPart: MultipartPart | undefined, infos: readonly PictureInfo[]): DetectionImages {
  const found = new Map<string, Uint8Array>();
  for (const part of parts) {
    if (part === xmlPart || part.body.length === 0 || !isImagePart(part)) continue;
    const type = pictureType(part, infos);
    if (type && !found.has(type)) found.set(type, part.body);
  }
  const images: DetectionImages = {};
  const plate = found.get(PLATE_CROP);
  const scene = found.get(SCENE) ?? found.get(VEHICLE);
  // Copies: the parts are views into the request body, which the caller may reuse.
  if (plate) images.plate_crop = new Uint8Array(plate);
  if (scene) images.full_scene = new Uint8Array(scene);
  return images;
}
