import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createRng, jpegBytes } from './plates.ts';
import { MULTIPART_BOUNDARY, multipartBody } from './vendor-a-xml.ts';

/**
 * What the plate-reader simulators share (docs/readers.md): each starts from a real payload kept
 * as an adapter fixture, puts in the plate, time and camera of the read it simulates, and POSTs
 * it over loopback as the reader would.
 */

export interface ReaderRead {
  plate: string;
  timeMs: number;
  /** The reader's own camera name (absent for CodeProject.AI, which names none). */
  camera?: string;
}

export interface ReaderBody {
  contentType: string;
  body: Buffer;
}

/** A fixture of a reader adapter, parsed: the simulators edit a copy of a real payload. */
export function readerFixture(folder: string, name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../shared/src/adapters/${folder}/fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

export const jsonBody = (value: unknown): ReaderBody => ({ contentType: 'application/json', body: Buffer.from(JSON.stringify(value), 'utf8') });

/** A real JPEG (drawn by plates.ts) beside the JSON, as Plate Recognizer's "Webhook with Image" posts it. */
export function withImage(json: ReaderBody, fieldJson: string, fieldImage: string, seed = 1): ReaderBody {
  const scene = jpegBytes(createRng(seed), 20_000, 'scene');
  return {
    contentType: `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`,
    body: multipartBody([
      { name: fieldJson, contentType: 'application/json', body: json.body },
      { name: fieldImage, contentType: 'image/jpeg', body: scene },
    ]),
  };
}

export interface PostAnswer {
  status: number;
  body: string;
}

/** One POST from 127.0.0.1 (the appliance accepts pushes from the LAN only). */
export function postReader(url: string, payload: ReaderBody, headers: Record<string, string> = {}): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', localAddress: '127.0.0.1', headers: { 'content-type': payload.contentType, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(payload.body);
  });
}
