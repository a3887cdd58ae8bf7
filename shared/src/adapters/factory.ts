import type { Adapter, AdapterContext, AdapterType, ParseInput, ParseOutcome } from './types.ts';
import { ADAPTER_TYPES } from './types.ts';
import { vendorA } from './vendor-a/index.ts';
import { vendorB } from './vendor-b/index.ts';
import { plateRecognizer } from './plate-recognizer/index.ts';
import { codeProjectAi } from './codeproject-ai/index.ts';
import { openAlpr } from './openalpr/index.ts';
import { genericJson } from './generic-json/index.ts';
import { frigate } from './frigate/index.ts';

/**
 * The adapter factory of docs/adapters.md: adapter type string -> adapter. Both the
 * appliance (pull runners, push receivers) and the hub (direct camera webhooks) use it.
 */
const registry: ReadonlyMap<AdapterType, Adapter> = new Map<AdapterType, Adapter>([
  ['vendor_a', vendorA],
  ['vendor_b', vendorB],
  // Plate readers (docs/readers.md), after the cameras: `auto` asks in this order, and each
  // reader's test is an envelope no camera sends. generic_json never matches `auto`.
  ['plate_recognizer', plateRecognizer],
  ['codeproject_ai', codeProjectAi],
  ['openalpr', openAlpr],
  ['generic_json', genericJson],
  // Frigate's events come over MQTT (appliance/src/cameras/frigate.ts); never guessed by `auto`.
  ['frigate', frigate],
]);

export const isAdapterType = (value: string): value is AdapterType => (ADAPTER_TYPES as readonly string[]).includes(value);

export function getAdapter(type: AdapterType): Adapter;
export function getAdapter(type: string): Adapter | undefined;
export function getAdapter(type: string): Adapter | undefined {
  return isAdapterType(type) ? registry.get(type) : undefined;
}

/**
 * The `auto` route (docs/ingest.md): vendor_a only for an `EventNotificationAlert`
 * root (bare XML with an XML or absent content type, or the XML part of a multipart push),
 * vendor_b by its JSON fields, packet header or headers. Any other XML matches no vendor.
 * vendor_a is asked first because its test is the stricter one (an XML root name).
 */
export function detectAdapter(input: ParseInput): Adapter | undefined {
  for (const adapter of registry.values()) {
    if (adapter.recognizes(input)) return adapter;
  }
  return undefined;
}

export interface RoutedOutcome extends ParseOutcome {
  adapter?: AdapterType;
}

/** Parse with a named adapter or `auto`; an unrecognised payload is a `failure`, never a throw. */
export function parseWith(type: AdapterType | 'auto', input: ParseInput, context: AdapterContext): RoutedOutcome {
  const adapter = type === 'auto' ? detectAdapter(input) : getAdapter(type);
  if (!adapter) {
    return {
      detections: [],
      errors: [],
      ignored: 0,
      failure: type === 'auto' ? 'payload matches no known camera vendor' : `unknown adapter type ${type}`,
    };
  }
  return { ...adapter.parse(input, context), adapter: adapter.type };
}
