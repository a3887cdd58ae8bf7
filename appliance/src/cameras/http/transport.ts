import { Agent, errors, request } from 'undici';
import type { Dispatcher } from 'undici';
import { ApplianceError, type CameraHttpErrorCode } from '../../errors.ts';

/**
 * The undici plumbing both camera clients share: one `Agent` per camera (so a camera's
 * TLS leniency never leaks to another host), timeouts, and a body size cap.
 */

export interface CameraHttpOptions {
  /** false for self-signed camera/console certificates. */
  rejectUnauthorized?: boolean;
  /** Time allowed for the response headers. Default 10 s: cameras answer in well under 1 s. */
  headersTimeoutMs?: number;
  /** Time allowed between body chunks. Default 15 s. */
  bodyTimeoutMs?: number;
  /**
   * Largest body we read. Default 8 MiB: a scene JPEG is ~65 kB to a few hundred kB, a
   * plates list a few kB; anything far bigger is a broken or hostile camera.
   */
  maxBodyBytes?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_BODY_TIMEOUT_MS = 15_000;
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Everything the clients throw: an ApplianceError with a CameraHttpErrorCode
 * (appliance/src/errors.ts); `isTransient` tells the adapter whether one retry makes sense.
 */
const cameraHttpError = (code: CameraHttpErrorCode, message: string, cause?: unknown): ApplianceError =>
  new ApplianceError(code, message, cause !== undefined ? { cause } : {});

export interface CameraRequest {
  method?: string;
  /** Absolute URL. */
  url: string;
  headers?: Record<string, string>;
  /** Replayable body: a Digest handshake may send it twice. */
  body?: string | Uint8Array;
}

export interface CameraResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export const createCameraAgent = (options: CameraHttpOptions): Agent =>
  new Agent({
    connect: { rejectUnauthorized: options.rejectUnauthorized ?? true },
    headersTimeout: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    bodyTimeout: options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS,
  });

async function readCapped(body: Dispatcher.ResponseData['body'], max: number, url: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    total += buf.length;
    if (total > max) {
      body.destroy();
      throw cameraHttpError('body_too_large', `response from ${url} exceeds ${max} bytes`);
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

function mapError(error: unknown, url: string): ApplianceError {
  if (error instanceof ApplianceError) return error;
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return cameraHttpError('timeout', `timed out talking to ${url}`, error);
  }
  if (error instanceof errors.ConnectTimeoutError) {
    return cameraHttpError('timeout', `connect timeout to ${url}`, error);
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^(ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|UND_ERR_SOCKET)$/.test(code)) {
    return cameraHttpError('connect_failed', `cannot reach ${url}: ${code}`, error);
  }
  const message = error instanceof Error ? error.message : String(error);
  return cameraHttpError('request_failed', `request to ${url} failed: ${message}`, error);
}

/** One request through the camera's agent, body read fully under the cap. */
export async function sendOnce(agent: Agent, req: CameraRequest, maxBodyBytes: number): Promise<CameraResponse> {
  try {
    const res = await request(req.url, {
      dispatcher: agent,
      method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: req.headers ?? {},
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    const body = await readCapped(res.body, maxBodyBytes, req.url);
    return { status: res.statusCode, headers: res.headers, body };
  } catch (error) {
    throw mapError(error, req.url);
  }
}

/** The request-target (path + query) a Digest `uri` must repeat. */
export const requestTarget = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
