import { request } from 'undici';
import type { Dispatcher } from 'undici';
import type { UploadOutcome } from './classify-response.ts';
import { classifyReply } from './classify-response.ts';
import type { EncodedBatch } from './encode-batch.ts';

export const BATCH_PATH = '/api/v1/detections/batch';

export interface UploadTimeouts {
  /** Waiting for the response headers after the body was sent (undici headersTimeout). */
  headersMs: number;
  /** Idle time between body chunks of the response (undici bodyTimeout). */
  bodyMs: number;
}

/** 30 s: a 5 MB batch on a 2 Mbit/s site uplink takes ~20 s; the hub answers in < 100 ms. */
export const DEFAULT_UPLOAD_TIMEOUTS: UploadTimeouts = { headersMs: 30_000, bodyMs: 30_000 };

/** A results array for 500 items is ~60 KB; anything far larger is not our hub. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface UploaderDeps {
  /** An undici Agent or Pool (connect timeout and keep-alive live there). */
  dispatcher: Dispatcher;
  hubUrl: string;
  timeouts: UploadTimeouts;
  nowMs: () => number;
}

export const batchUrl = (hubUrl: string): string => `${hubUrl.replace(/\/+$/, '')}${BATCH_PATH}`;

async function readCapped(body: AsyncIterable<Buffer | Uint8Array>): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

const describe = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
};

/**
 * POSTs one encoded batch and classifies the reply. Never throws: network errors,
 * timeouts and unreadable bodies become `retry` outcomes. The key is sent as a header
 * only and appears in no error text.
 */
export async function uploadBatch(deps: UploaderDeps, apiKey: string, batch: EncodedBatch): Promise<UploadOutcome> {
  let status: number;
  let retryAfter: string | undefined;
  let bodyText: string | undefined;
  try {
    const response = await request(batchUrl(deps.hubUrl), {
      dispatcher: deps.dispatcher,
      method: 'POST',
      headers: {
        'content-type': batch.contentType,
        'content-length': String(batch.byteLength),
        'x-api-key': apiKey,
        accept: 'application/json',
      },
      body: Buffer.concat(batch.chunks, batch.byteLength),
      headersTimeout: deps.timeouts.headersMs,
      bodyTimeout: deps.timeouts.bodyMs,
    });
    status = response.statusCode;
    const header = response.headers['retry-after'];
    retryAfter = Array.isArray(header) ? header[0] : header;
    bodyText = await readCapped(response.body);
    if (bodyText === undefined) response.body.destroy();
  } catch (error) {
    return { kind: 'retry', reason: `network: ${describe(error)}` };
  }
  if (bodyText === undefined) return { kind: 'retry', status, reason: `HTTP ${status} with an oversized body` };
  return classifyReply({ status, bodyText, retryAfter, nowMs: deps.nowMs() });
}
