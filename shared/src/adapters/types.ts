import type { Detection, DetectionImages, ImageKind } from '../detection/schema.ts';

export const ADAPTER_TYPES = ['vendor_a', 'vendor_b', 'plate_recognizer', 'codeproject_ai', 'openalpr', 'generic_json', 'frigate'] as const;
export type AdapterType = (typeof ADAPTER_TYPES)[number];

/**
 * The plate-reader sources (docs/readers.md): software that already reads plates and posts its
 * results. They only push, name cameras by a string rather than a MAC, and never need a host.
 */
export const READER_TYPES = ['plate_recognizer', 'codeproject_ai', 'openalpr', 'generic_json'] as const satisfies readonly AdapterType[];
export type ReaderType = (typeof READER_TYPES)[number];
export const isReaderType = (value: string): value is ReaderType => (READER_TYPES as readonly string[]).includes(value);

/** Camera identity known from configuration (the payload may lack it, e.g. vendor_a pull). */
export interface CameraIdentity {
  id?: string;
  mac?: string;
  name?: string;
}

/** Per-camera mapping of vendor_a `forward`/`reverse`; see docs/normalization.md. */
export interface DirectionMapping {
  forward: 'entering' | 'exiting' | 'unknown';
  reverse: 'entering' | 'exiting' | 'unknown';
}

/** Everything an adapter may need besides the payload. Pure data: no clock, no I/O. */
export interface AdapterContext {
  /** IANA zone of the camera clock, used when a timestamp carries no explicit offset. */
  timezone?: string;
  /** The configured camera (vendor_a: one camera per device/channel). */
  camera?: CameraIdentity;
  /** vendor_b: camera id -> identity, from the NVR bootstrap `cameras[]`. */
  cameras?: ReadonlyMap<string, CameraIdentity>;
  directionMapping?: DirectionMapping;
}

export interface ParseInput {
  body: Uint8Array;
  /** The request `Content-Type`, when there was a request. */
  contentType?: string;
  /** Lowercased request headers, when there was a request. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Where the bytes come from. `pushed` (the default): posted to the appliance's open port by
   * anyone on the LAN, so parsing is bounded tightly. `pulled`: the reply of a camera the
   * installer configured, or a file an operator reads; already capped by size, and a
   * console may answer a whole time window at once (docs/adapters.md "Reply sizes").
   */
  origin?: 'pushed' | 'pulled';
}

/**
 * An image the payload names but does not carry: the runner fetches it from the camera.
 * `path` is relative to the camera's base URL.
 */
export interface ImageFetch {
  kind: ImageKind;
  path: string;
}

export interface ParsedDetection {
  detection: Detection;
  images: DetectionImages;
  fetchImages: ImageFetch[];
  /** Raw vendor values kept for diagnostics (e.g. raw plate, vendor brand code). */
  raw?: Readonly<Record<string, string>>;
}

/** One item that could not be turned into a detection (error rule 2 in docs/cameras.md). */
export interface ParseIssue {
  /** Position of the item within the payload, when it has one. */
  item?: number;
  reason: string;
}

export interface ParseOutcome {
  detections: ParsedDetection[];
  /** Items that were broken: log a warning and count an error for each. */
  errors: ParseIssue[];
  /** Items that were well-formed but hold no plate (non-ANPR event, `unknown` plate...). */
  ignored: number;
  /**
   * Set when the payload as a whole is not something this adapter understands
   * (not XML, not JSON, wrong root...). Then `detections` is empty.
   */
  failure?: string;
  /** Pull formats: the cursor to continue from (vendor_a picName, vendor_b epoch ms), as a string. */
  cursor?: string;
}

/** A stateful decoder for streams where later messages complete earlier ones (vendor_b WebSocket). */
export interface PacketStream {
  push(packet: Uint8Array): ParseOutcome;
  /** Emit what is still held back (events that never got a final update). */
  flush(): ParseOutcome;
}

export interface Adapter {
  readonly type: AdapterType;
  /** True when the payload looks like this vendor's (for the `auto` route). */
  recognizes(input: ParseInput): boolean;
  /** Parse one payload; never throws. */
  parse(input: ParseInput, context: AdapterContext): ParseOutcome;
  /** Open a stateful stream decoder, for vendors that stream binary packets. */
  openStream?(context: AdapterContext): PacketStream;
}

export const emptyOutcome = (): ParseOutcome => ({ detections: [], errors: [], ignored: 0 });
