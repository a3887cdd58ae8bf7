import type { ParseInput } from '../types.ts';
import { parseJsonBytes, PULLED_JSON_LIMITS, PUSHED_JSON_LIMITS } from './json.ts';
import { isJsonText } from './message.ts';
import { looksLikePacket } from './packet.ts';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Top-level fields that only a vendor_b event has (docs/camera-formats.md "vendor_b event object").
 * `modelKey` and the smart-detect fields are Protect's own words; `metadata` alone is too common to
 * count.
 */
const EVENT_FIELDS = ['modelKey', 'smartDetectTypes', 'smartDetectEvents'] as const;

export function looksLikeEvent(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (EVENT_FIELDS.some((field) => field in value)) return true;
  const metadata = value.metadata;
  return isRecord(metadata) && ('detectedThumbnails' in metadata || 'licensePlate' in metadata);
}

/** Any JSON root shape this adapter parses, holding at least one vendor_b event. */
export function looksLikeVendorBJson(root: unknown): boolean {
  // Checking a few items is enough to recognise the format; a 10,000-item list stays cheap.
  const someEvent = (items: readonly unknown[]): boolean => items.slice(0, 5).some(looksLikeEvent);
  if (Array.isArray(root)) return someEvent(root);
  if (!isRecord(root)) return false;
  if (Array.isArray(root.events)) return someEvent(root.events);
  if (typeof root.type === 'string' && isRecord(root.item)) return looksLikeEvent(root.item) || root.item.modelKey === 'event';
  return looksLikeEvent(root);
}

/**
 * Header prefixes we take as vendor_b: a relay or the console's alarm webhook that names
 * itself. No public source documents such a header, so this is a convention for our own
 * camera simulator and relays; the body checks below do the real work.
 */
const HEADER_PREFIXES = ['x-unifi-', 'x-protect-'] as const;

/** The `auto` route test (docs/ingest.md). Never throws. */
export function recognizesVendorB(input: ParseInput): boolean {
  const headerNames = Object.keys(input.headers ?? {});
  if (headerNames.some((name) => HEADER_PREFIXES.some((p) => name.toLowerCase().startsWith(p)))) return true;
  const body = input.body;
  if (body.length === 0) return false;
  if (looksLikePacket(body)) return true;
  const first = body.find((b) => b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d);
  if (first !== 0x5b && !isJsonText(body)) return false;
  const root = parseJsonBytes(body, input.origin === 'pulled' ? PULLED_JSON_LIMITS : PUSHED_JSON_LIMITS);
  return root.ok && looksLikeVendorBJson(root.value);
}
