import { randomBytes } from 'node:crypto';
import { offersBasic, parseChallenges, pickDigestChallenge } from './challenge.ts';
import type { DigestChallenge } from './challenge.ts';
import { basicAuthorization, digestAuthorization } from './digest-response.ts';
import { DEFAULT_MAX_BODY_BYTES, createCameraAgent, requestTarget, sendOnce } from './transport.ts';
import type { CameraHttpOptions, CameraRequest, CameraResponse } from './transport.ts';

/**
 * HTTP client for vendor_a cameras (ISAPI): Digest (RFC 7616) with Basic as the fallback
 * when the camera offers only Basic (docs/camera-formats.md "vendor_a transport and auth").
 *
 * The nonce from the last challenge is reused with an increasing nonce count, so a
 * 2 s poll costs one round trip instead of two. When a request with a reused nonce gets a
 * 401 (the camera says `stale=true`, or silently expired the nonce) the client answers
 * the fresh challenge once; a 401 to a freshly answered challenge is returned to the
 * caller, because then the credentials are wrong and retrying would only lock the account.
 */

export interface DigestClientOptions extends CameraHttpOptions {
  username: string;
  password: string;
  /** Injected for tests; default 16 random bytes as hex (RFC 7616 asks for ≥ 64 bits). */
  cnonce?: () => string;
}

export interface DigestClient {
  request(req: CameraRequest): Promise<CameraResponse>;
  close(): Promise<void>;
}

type Scheme = { kind: 'digest'; challenge: DigestChallenge; nc: number } | { kind: 'basic' };

const newCnonce = (): string => randomBytes(16).toString('hex');

export function createDigestClient(options: DigestClientOptions): DigestClient {
  const agent = createCameraAgent(options);
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const cnonce = options.cnonce ?? newCnonce;
  // Per client, i.e. per camera: one host, one realm, one nonce at a time.
  let scheme: Scheme | undefined;

  function authorize(req: CameraRequest, current: Scheme): string {
    if (current.kind === 'basic') return basicAuthorization(options.username, options.password);
    current.nc += 1;
    return digestAuthorization({
      challenge: current.challenge,
      username: options.username,
      password: options.password,
      method: (req.method ?? 'GET').toUpperCase(),
      uri: requestTarget(req.url),
      cnonce: cnonce(),
      nc: current.nc,
      ...(current.challenge.qop === 'auth-int' && req.body !== undefined ? { entityBody: req.body } : {}),
    });
  }

  const send = (req: CameraRequest, authorization: string | undefined): Promise<CameraResponse> =>
    sendOnce(agent, { ...req, headers: { ...req.headers, ...(authorization !== undefined ? { authorization } : {}) } }, maxBody);

  /** The scheme a 401 asks for, or undefined when we cannot answer it. */
  function schemeFrom(res: CameraResponse): Scheme | undefined {
    const challenges = parseChallenges(res.headers['www-authenticate']);
    const digest = pickDigestChallenge(challenges);
    if (digest) return { kind: 'digest', challenge: digest, nc: 0 };
    if (offersBasic(challenges)) return { kind: 'basic' };
    return undefined;
  }

  return {
    async request(req) {
      const reused = scheme;
      const first = await send(req, reused ? authorize(req, reused) : undefined);
      if (first.status !== 401) return first;
      const next = schemeFrom(first);
      if (!next) return first;
      // A 401 to credentials answered for this very challenge means wrong credentials,
      // unless the camera flags the nonce as stale.
      const sameNonce = reused?.kind === 'digest' && next.kind === 'digest' && reused.challenge.nonce === next.challenge.nonce;
      const wrongCredentials = (reused?.kind === 'basic' && next.kind === 'basic') || (sameNonce && !next.challenge.stale);
      if (wrongCredentials) {
        scheme = undefined;
        return first;
      }
      scheme = next;
      const second = await send(req, authorize(req, next));
      if (second.status === 401) scheme = undefined;
      return second;
    },
    close: () => agent.close(),
  };
}
