/**
 * vendor_a push document `EventNotificationAlert` (docs/camera-formats.md "vendor_a push document")
 * -> one detection. Elements are addressed by path of local names: `ANPR/vehicleType` (a string
 * class) and `ANPR/vehicleInfo/vehicleType` (a numeric size class on ITS models) are different
 * fields.
 */
import { buildDetection } from '../../detection/build.ts';
import type { DetectionImages } from '../../detection/schema.ts';
import { normalizeConfidence, normalizeDirection, normalizeMac } from '../../detection/normalize.ts';
import { parseCameraTime } from '../../detection/time.ts';
import type { AdapterContext, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import type { XmlValue } from '../xml.ts';
import { childElement, childrenNamed, childText, textAt } from '../xml.ts';
import { rawFields, textualRegion, VENDOR } from './fields.ts';
import { makeFromCode, modelFromField, vehicleTypeOf } from './vehicle-codes.ts';

export const ALERT_ROOT = 'EventNotificationAlert';

export interface PictureInfo {
  fileName?: string;
  type?: string;
}

/** `ANPR/pictureInfoList/pictureInfo` entries: which attached file is which picture. */
export function pictureInfos(root: XmlValue): PictureInfo[] {
  const list = childElement(childElement(root, 'ANPR'), 'pictureInfoList');
  return childrenNamed(list, 'pictureInfo').map((entry) => {
    const fileName = childText(entry, 'fileName')?.trim();
    const type = childText(entry, 'type')?.trim();
    return { ...(fileName ? { fileName } : {}), ...(type ? { type } : {}) };
  });
}

/**
 * Camera id: the configured one, else `<mac>-ch<channel>` so two channels of one NVR-like
 * device stay apart; with neither, buildDetection falls back to the MAC.
 */
function cameraIdFor(context: AdapterContext, mac: string | undefined, channel: string | undefined): string | undefined {
  if (context.camera?.id) return context.camera.id;
  if (!mac || !channel || !/^[\w-]{1,16}$/.test(channel)) return undefined;
  return `${mac}-ch${channel}`;
}

/** Parse one alert. Non-ANPR events count as ignored; a broken ANPR alert is an error entry. */
export function parseAlert(root: XmlValue, context: AdapterContext, images: DetectionImages = {}): ParseOutcome {
  const outcome = emptyOutcome();
  const eventType = childText(root, 'eventType')?.trim();
  if (eventType === undefined) {
    outcome.errors.push({ reason: 'EventNotificationAlert without eventType' });
    return outcome;
  }
  // The alarm-server target also receives motion, VMD, videoloss heartbeats....
  if (eventType.toUpperCase() !== 'ANPR') {
    outcome.ignored = 1;
    return outcome;
  }
  // Decision: `eventState` inactive is ignored. ISAPI uses inactive for "alarm over" and for
  // keep-alive posts; every ANPR read in the public samples arrives as `active`, and a read
  // reported again as inactive would be a second copy of an alarm we already have.
  if (childText(root, 'eventState')?.trim().toLowerCase() === 'inactive') {
    outcome.ignored = 1;
    return outcome;
  }
  const anpr = childElement(root, 'ANPR');
  if (!anpr) {
    outcome.errors.push({ reason: 'ANPR event without an <ANPR> block' });
    return outcome;
  }
  const rawPlate = childText(anpr, 'licensePlate');
  if (rawPlate === undefined) {
    outcome.errors.push({ reason: 'ANPR event without a <licensePlate> text' });
    return outcome;
  }
  const dateTime = childText(root, 'dateTime');
  const timestamp = dateTime === undefined ? undefined : parseCameraTime(dateTime, context.timezone);
  if (!timestamp) {
    outcome.errors.push({ reason: `ANPR event with a missing or invalid dateTime (${dateTime ?? 'absent'})` });
    return outcome;
  }
  const rawMac = childText(root, 'macAddress');
  // The payload's own MAC wins: it names the device that saw the car. Config is the fallback.
  const mac = normalizeMac(rawMac) ?? normalizeMac(context.camera?.mac);
  const channel = childText(root, 'channelID')?.trim();
  const vehicleTypeRaw = childText(anpr, 'vehicleType');
  const sizeClass = textAt(anpr, 'vehicleInfo', 'vehicleType');
  const vehicleType = vehicleTypeOf(vehicleTypeRaw, sizeClass);
  // Codes become names through vehicle-codes.ts or nothing; the raw codes stay in `raw`.
  const brandCode = textAt(anpr, 'vehicleInfo', 'vehicleLogoRecog');
  const subBrandCode = textAt(anpr, 'vehicleInfo', 'vehileSubLogoRecog') ?? textAt(anpr, 'vehicleInfo', 'vehicleSubLogoRecog');
  const modelCode = textAt(anpr, 'vehicleInfo', 'vehileModel') ?? textAt(anpr, 'vehicleInfo', 'vehicleModel');
  const country = childText(anpr, 'country');
  const region = textualRegion(country);
  const built = buildDetection({
    vendor: VENDOR,
    sourceId: childText(root, 'UUID'),
    timestamp,
    cameraId: cameraIdFor(context, mac, channel),
    cameraMac: mac,
    // A leading Chinese plate-colour character (`蓝京A12345`) is stripped by normalizePlateText.
    plateText: rawPlate,
    confidence: normalizeConfidence(childText(anpr, 'confidenceLevel'), 'percent'),
    direction: normalizeDirection(childText(anpr, 'direction'), context.directionMapping),
    ...(region ? { region } : {}),
    ...(vehicleType ? { vehicleType } : {}),
    color: textAt(anpr, 'vehicleInfo', 'color'),
    brand: makeFromCode(brandCode),
    model: modelFromField(modelCode),
  });
  if (built.kind === 'no_plate') {
    outcome.ignored = 1;
  } else if (built.kind === 'invalid') {
    outcome.errors.push({ reason: `ANPR event rejected: ${built.reason}` });
  } else {
    outcome.detections.push({
      detection: built.detection,
      images,
      fetchImages: [],
      raw: rawFields({
        plate: rawPlate,
        plateColor: childText(anpr, 'plateColor'),
        direction: childText(anpr, 'direction'),
        vehicleType: vehicleTypeRaw,
        sizeClass,
        brandCode,
        subBrandCode,
        modelCode,
        country,
        activePostCount: childText(root, 'activePostCount'),
      }),
    });
  }
  return outcome;
}
