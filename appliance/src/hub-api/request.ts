import { request, type Dispatcher } from 'undici';
import type { CallTimeouts } from '@alpr/shared/http/timeouts';
import { defaultHubAgent } from './tls.ts';

/**
 * The appliance's one HTTP call to the hub. Never throws: a network failure, a timeout and
 * an oversized reply are values each caller turns into its own outcome. The API key goes in
 * the `x-api-key` header only and never into a returned text.
 */
export interface HubTarget {
  hubUrl: string;
  /** Default: the process's hub agent (tls.ts). */
  dispatcher?: Dispatcher;
}

export interface HubPost {
  path: string;
  apiKey?: string;
  contentType: string;
  body: Buffer | string;
  /** Sent when the body's length is known up front (multipart batches). */
  contentLength?: number;
  timeouts: CallTimeouts;
  maxResponseBytes: number;
}

export type HubReply =
  | { kind: 'reply'; status: number; headers: Record<string, string | string[] | undefined>; text: string }
  | { kind: 'oversized'; status: number }
  | { kind: 'network'; error: unknown };

/** `https://hub/base/` + `/api/v1/x` without a double slash. */
export const hubUrlFor = (hubUrl: string, path: string): string => `${hubUrl.replace(/\/+$/, '')}${path}`;

export const postJson = (target: HubTarget, call: Omit<HubPost, 'contentType' | 'body'> & { json: unknown }): Promise<HubReply> =>
  postToHub(target, { ...call, contentType: 'application/json', body: JSON.stringify(call.json) });

export async function postToHub(target: HubTarget, call: HubPost): Promise<HubReply> {
  try {
    const response = await request(hubUrlFor(target.hubUrl, call.path), {
      dispatcher: target.dispatcher ?? defaultHubAgent(),
      method: 'POST',
      headers: {
        'content-type': call.contentType,
        accept: 'application/json',
        ...(call.contentLength !== undefined ? { 'content-length': String(call.contentLength) } : {}),
        ...(call.apiKey !== undefined ? { 'x-api-key': call.apiKey } : {}),
      },
      body: call.body,
      headersTimeout: call.timeouts.headersMs,
      bodyTimeout: call.timeouts.bodyMs,
    });
    const text = await readCapped(response.body, call.maxResponseBytes);
    if (text === undefined) {
      response.body.destroy();
      return { kind: 'oversized', status: response.statusCode };
    }
    return { kind: 'reply', status: response.statusCode, headers: response.headers, text };
  } catch (error) {
    return { kind: 'network', error };
  }
}

/** The body as UTF-8, or undefined past `maxBytes` (the caller destroys the stream). */
export async function readCapped(body: AsyncIterable<Buffer | Uint8Array>, maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) return undefined;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

export const headerValue = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** `CODE: message` of a network error, for logs and state (never holds the key: it is a header). */
export const describeNetworkError = (error: unknown): string => {
  if (error instanceof Error) {
    const code = (error as Error & { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
};
