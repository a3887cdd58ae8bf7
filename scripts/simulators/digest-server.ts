import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Server side of HTTP Digest for the vendor_a camera simulator (RFC 7616, qop=auth).
 * Written independently of the appliance client on purpose: a test that used the same
 * code on both ends would pass even if that code were wrong.
 */

export type ServerAlgorithm = 'MD5' | 'SHA-256';

export interface DigestGuardOptions {
  username: string;
  password: string;
  realm: string;
  algorithm: ServerAlgorithm;
  /**
   * A nonce answers this many requests, then the camera says `stale=true` (forces the
   * client through its re-challenge path). Default: unlimited.
   */
  nonceMaxUses?: number;
}

export type DigestVerdict = 'ok' | 'stale' | 'denied';

interface NonceState {
  uses: number;
  seenNc: Set<string>;
}

/** `key="value"` / `key=token` pairs of an Authorization header. */
export function parseAuthParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    const key = (m[1] ?? '').toLowerCase();
    out[key] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  return out;
}

const equalText = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export interface DigestGuard {
  /** `WWW-Authenticate` value for a 401 with a fresh nonce. */
  challenge(stale?: boolean): string;
  verify(method: string, requestUri: string, authorization: string | undefined): DigestVerdict;
}

export function createDigestGuard(options: DigestGuardOptions): DigestGuard {
  const nonces = new Map<string, NonceState>();
  const opaque = randomBytes(12).toString('hex');
  const hashName = options.algorithm === 'MD5' ? 'md5' : 'sha256';
  const H = (s: string): string => createHash(hashName).update(s).digest('hex');

  return {
    challenge(stale = false) {
      const nonce = randomBytes(16).toString('base64');
      nonces.set(nonce, { uses: 0, seenNc: new Set() });
      // Bounded memory for long runs: a client that never answers leaves a nonce behind.
      if (nonces.size > 1000) nonces.delete(nonces.keys().next().value ?? '');
      const staleParam = stale ? ', stale=true' : '';
      return `Digest realm="${options.realm}", qop="auth", algorithm=${options.algorithm}, nonce="${nonce}", opaque="${opaque}"${staleParam}`;
    },
    verify(method, requestUri, authorization) {
      if (!authorization || !/^digest\s/i.test(authorization)) return 'denied';
      const p = parseAuthParams(authorization.slice(7));
      const { username, realm, nonce, uri, response, qop, nc, cnonce } = p;
      if (!username || !nonce || !uri || !response || !nc || !cnonce) return 'denied';
      if (realm !== options.realm || qop !== 'auth' || (p.algorithm ?? 'MD5').toUpperCase() !== options.algorithm) return 'denied';
      if (p.opaque !== undefined && p.opaque !== opaque) return 'denied';
      // The uri parameter must name the resource actually requested (RFC 7616 §3.4.6).
      if (uri !== requestUri) return 'denied';
      const state = nonces.get(nonce);
      if (!state) return 'denied';
      const ha1 = H(`${options.username}:${realm}:${options.password}`);
      const ha2 = H(`${method}:${uri}`);
      const expected = H(`${ha1}:${nonce}:${nc}:${cnonce}:auth:${ha2}`);
      if (!equalText(username, options.username) || !equalText(response, expected)) return 'denied';
      if (state.seenNc.has(nc)) return 'denied'; // replayed nonce count
      if (options.nonceMaxUses !== undefined && state.uses >= options.nonceMaxUses) {
        nonces.delete(nonce);
        return 'stale';
      }
      state.uses += 1;
      state.seenNc.add(nc);
      return 'ok';
    },
  };
}
