import { DEFAULT_MAX_BODY_BYTES, createCameraAgent, sendOnce } from './transport.ts';
import type { CameraHttpOptions, CameraRequest, CameraResponse } from './transport.ts';

/**
 * HTTP client for vendor_b consoles: a static token in `Authorization: Bearer` or in
 * `X-API-KEY` (the integration API's header, docs/camera-formats.md "vendor_b auth and TLS").
 *
 * TLS verification is OFF unless asked for: consoles ship self-signed certificates and
 * both public client libraries skip verification by default. The agent is per
 * console, so this leniency never applies to any other host.
 */

export type TokenHeader = 'bearer' | 'x-api-key';

export interface BearerClientOptions extends CameraHttpOptions {
  token: string;
  /** Default `bearer`. */
  header?: TokenHeader;
}

export interface BearerClient {
  request(req: CameraRequest): Promise<CameraResponse>;
  /** The auth header alone, for the updates WebSocket that must send the same credentials. */
  authHeaders(): Record<string, string>;
  close(): Promise<void>;
}

export const tokenHeaders = (token: string, header: TokenHeader): Record<string, string> =>
  header === 'x-api-key' ? { 'x-api-key': token } : { authorization: `Bearer ${token}` };

export function createBearerClient(options: BearerClientOptions): BearerClient {
  const agent = createCameraAgent({ ...options, rejectUnauthorized: options.rejectUnauthorized ?? false });
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const auth = tokenHeaders(options.token, options.header ?? 'bearer');
  return {
    request: (req) => sendOnce(agent, { ...req, headers: { ...req.headers, ...auth } }, maxBody),
    authHeaders: () => ({ ...auth }),
    close: () => agent.close(),
  };
}
