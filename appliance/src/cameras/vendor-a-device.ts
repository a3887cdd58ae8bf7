import { childText, parseXmlSafely } from '@alpr/shared/adapters/xml';
import { normalizeMac } from '@alpr/shared/detection/normalize';
import { ApplianceError } from '../errors.ts';
import type { CameraResponse } from './http/transport.ts';

/**
 * The camera's MAC from `GET /ISAPI/System/deviceInfo` (`<macAddress>`), for a vendor_a
 * pull camera configured without one: the pull list carries no MAC (docs/camera-formats.md
 * "vendor_a pull"), yet every detection needs it (normalization rule 2 in docs/normalization.md,
 * dedupe key).
 */
export const DEVICE_INFO_PATH = '/ISAPI/System/deviceInfo';

export function macFromDeviceInfo(res: CameraResponse): string {
  if (res.status !== 200) throw new ApplianceError('camera_unreachable', `deviceInfo answered HTTP ${res.status}`);
  const parsed = parseXmlSafely(res.body, { maxBytes: 256 * 1024 });
  if (!parsed.ok) throw new ApplianceError('camera_unreachable', `deviceInfo is not XML: ${parsed.reason}`);
  const mac = normalizeMac(childText(parsed.root, 'macAddress'));
  if (!mac) throw new ApplianceError('camera_unreachable', 'deviceInfo has no usable <macAddress>; set the camera MAC in its configuration');
  return mac;
}

/** The camera's own clock (`GET /ISAPI/System/time`, `<localTime>`). */
export const CAMERA_TIME_PATH = '/ISAPI/System/time';

/** The camera's `<localTime>` text, or undefined when the device has no such API or answers oddly. */
export function localTimeFromResponse(res: CameraResponse): string | undefined {
  if (res.status !== 200) return undefined;
  const parsed = parseXmlSafely(res.body, { maxBytes: 64 * 1024 });
  if (!parsed.ok) return undefined;
  return childText(parsed.root, 'localTime') ?? undefined;
}
