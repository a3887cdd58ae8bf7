import type { Dispatcher } from 'undici';
import type { CallTimeouts } from '@alpr/shared/http/timeouts';
import { BATCH_PATH } from '@alpr/shared/protocol/paths';
import { describeNetworkError, headerValue, hubUrlFor, postToHub } from '../hub-api/request.ts';
import { UPLOAD_MAX_RESPONSE_BYTES } from '../hub-api/timeouts.ts';
import type { UploadOutcome } from './classify-response.ts';
import { classifyReply } from './classify-response.ts';
import type { EncodedBatch } from './encode-batch.ts';

export interface UploaderDeps {
  /** An undici Agent or Pool (connect timeout, keep-alive and TLS live there: hub-api/tls.ts). */
  dispatcher: Dispatcher;
  hubUrl: string;
  /** headersMs: waiting for the response head after the body was sent; bodyMs: idle time between response chunks. */
  timeouts: CallTimeouts;
  nowMs: () => number;
}

export const batchUrl = (hubUrl: string): string => hubUrlFor(hubUrl, BATCH_PATH);

/**
 * POSTs one encoded batch and classifies the reply. Never throws: network errors,
 * timeouts and unreadable bodies become `retry` outcomes.
 */
export async function uploadBatch(deps: UploaderDeps, apiKey: string, batch: EncodedBatch): Promise<UploadOutcome> {
  const reply = await postToHub(deps, {
    path: BATCH_PATH,
    apiKey,
    contentType: batch.contentType,
    contentLength: batch.byteLength,
    body: Buffer.concat(batch.chunks, batch.byteLength),
    timeouts: deps.timeouts,
    maxResponseBytes: UPLOAD_MAX_RESPONSE_BYTES,
  });
  if (reply.kind === 'network') return { kind: 'retry', reason: `network: ${describeNetworkError(reply.error)}` };
  if (reply.kind === 'oversized') return { kind: 'retry', status: reply.status, reason: `HTTP ${reply.status} with an oversized body` };
  return classifyReply({ status: reply.status, bodyText: reply.text, retryAfter: headerValue(reply.headers['retry-after']), nowMs: deps.nowMs() });
}
