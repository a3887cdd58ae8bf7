import { createHash } from 'node:crypto';
import type { DigestAlgorithm, DigestChallenge } from './challenge.ts';

/**
 * Digest response computation (RFC 7616 §3.4.1–3.4.3, RFC 2617 §3.2.2). Pure: the cnonce
 * and nonce count come in as arguments so the RFC example vectors can be checked.
 */

const HASH_OF: Record<DigestAlgorithm, string> = {
  MD5: 'md5',
  'MD5-sess': 'md5',
  'SHA-256': 'sha256',
  'SHA-256-sess': 'sha256',
  'SHA-512-256': 'sha512-256',
  'SHA-512-256-sess': 'sha512-256',
};

export const digestHash = (algorithm: DigestAlgorithm, data: string | Uint8Array): string => createHash(HASH_OF[algorithm]).update(data).digest('hex');

export interface DigestInput {
  algorithm: DigestAlgorithm;
  username: string;
  password: string;
  realm: string;
  nonce: string;
  method: string;
  /** The request-target exactly as sent: path plus query. */
  uri: string;
  qop?: 'auth' | 'auth-int';
  /** Required with qop and with `-sess` algorithms. */
  cnonce?: string;
  /** Nonce count as a number; formatted as 8 hex digits. */
  nc?: number;
  /** Request body, for `auth-int` only. */
  entityBody?: string | Uint8Array;
}

export const formatNonceCount = (nc: number): string => nc.toString(16).padStart(8, '0');

/** The `response` value the server checks. */
export function computeDigestResponse(input: DigestInput): string {
  const h = (data: string | Uint8Array): string => digestHash(input.algorithm, data);
  let ha1 = h(`${input.username}:${input.realm}:${input.password}`);
  if (input.algorithm.endsWith('-sess')) {
    ha1 = h(`${ha1}:${input.nonce}:${input.cnonce ?? ''}`);
  }
  const a2 = input.qop === 'auth-int' ? `${input.method}:${input.uri}:${h(input.entityBody ?? '')}` : `${input.method}:${input.uri}`;
  const ha2 = h(a2);
  if (input.qop === undefined) return h(`${ha1}:${input.nonce}:${ha2}`); // RFC 2069 compatibility
  const nc = formatNonceCount(input.nc ?? 1);
  return h(`${ha1}:${input.nonce}:${nc}:${input.cnonce ?? ''}:${input.qop}:${ha2}`);
}

const quote = (value: string): string => `"${value.replace(/(["\\])/g, '\\$1')}"`;

export interface AuthorizationInput {
  challenge: DigestChallenge;
  username: string;
  password: string;
  method: string;
  uri: string;
  cnonce: string;
  nc: number;
  entityBody?: string | Uint8Array;
}

/** The full `Authorization: Digest …` header value for one request. */
export function digestAuthorization(input: AuthorizationInput): string {
  const { challenge } = input;
  const response = computeDigestResponse({
    algorithm: challenge.algorithm,
    username: input.username,
    password: input.password,
    realm: challenge.realm,
    nonce: challenge.nonce,
    method: input.method,
    uri: input.uri,
    cnonce: input.cnonce,
    nc: input.nc,
    ...(challenge.qop !== undefined ? { qop: challenge.qop } : {}),
    ...(input.entityBody !== undefined ? { entityBody: input.entityBody } : {}),
  });
  // RFC 7616 §3.4.4: with userhash the username field carries H(username ":" realm).
  const username = challenge.userhash ? digestHash(challenge.algorithm, `${input.username}:${challenge.realm}`) : input.username;
  const parts = [
    `username=${quote(username)}`,
    `realm=${quote(challenge.realm)}`,
    `nonce=${quote(challenge.nonce)}`,
    `uri=${quote(input.uri)}`,
    `algorithm=${challenge.algorithm}`,
    `response=${quote(response)}`,
  ];
  if (challenge.opaque !== undefined) parts.push(`opaque=${quote(challenge.opaque)}`);
  if (challenge.qop !== undefined) {
    parts.push(`qop=${challenge.qop}`, `nc=${formatNonceCount(input.nc)}`, `cnonce=${quote(input.cnonce)}`);
  } else if (challenge.algorithm.endsWith('-sess')) {
    parts.push(`cnonce=${quote(input.cnonce)}`);
  }
  if (challenge.userhash) parts.push('userhash=true');
  return `Digest ${parts.join(', ')}`;
}

/** `Authorization: Basic …` (RFC 7617), UTF-8 credentials. */
export const basicAuthorization = (username: string, password: string): string => `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
