/** Test support for the vendor_a tests: fixture loading and small accessors. */
import { readFileSync } from 'node:fs';
import type { AdapterContext, ParsedDetection, ParseOutcome } from '../types.ts';
import { vendorA } from './index.ts';

export const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));

/** The request Content-Type each multipart fixture was captured with. */
export const MULTIPART_TYPES: Readonly<Record<string, string>> = {
  'multipart-crlf.bin': 'multipart/form-data; boundary=boundary',
  'multipart-dashrun.bin': 'multipart/form-data;boundary=---------------------------7e13971310878',
  'multipart-empty-pjpeg.bin': 'multipart/form-data; boundary="MIME_boundary_3"',
};

export function parseFixture(name: string, context: AdapterContext = {}, contentType?: string): ParseOutcome {
  const type = contentType ?? MULTIPART_TYPES[name] ?? 'application/xml; charset="UTF-8"';
  return vendorA.parse({ body: fixture(name), contentType: type }, context);
}

export function parseText(xml: string, context: AdapterContext = {}, contentType = 'text/xml'): ParseOutcome {
  return vendorA.parse({ body: new TextEncoder().encode(xml), contentType }, context);
}

/** The single detection of an outcome; throws (failing the test) when there is not exactly one. */
export function only(outcome: ParseOutcome): ParsedDetection {
  const [first, ...rest] = outcome.detections;
  if (!first || rest.length > 0) {
    throw new Error(`expected one detection, got ${outcome.detections.length}: ${JSON.stringify({ ...outcome, detections: undefined })}`);
  }
  return first;
}

export const latin1 = (bytes: Uint8Array | undefined): string => Buffer.from(bytes ?? new Uint8Array()).toString('latin1');
