/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 7616 §3.3). Pure: no I/O.
 *
 * One header value can hold several challenges (`Digest …, Digest …, Basic …`) and a
 * response can carry several headers; cameras that offer both MD5 and SHA-256 send one
 * challenge per algorithm, so we parse them all and pick the strongest we support.
 */

export interface Challenge {
  /** Lower-cased scheme: `digest`, `basic`, `bearer`, … */
  scheme: string;
  /** Lower-cased parameter names; values unquoted and unescaped. */
  params: Record<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

interface Cursor {
  text: string;
  at: number;
}

function skipSpaceAndCommas(c: Cursor): void {
  while (c.at < c.text.length && /[\s,]/.test(c.text.charAt(c.at))) c.at++;
}

function skipSpace(c: Cursor): void {
  while (c.at < c.text.length && /\s/.test(c.text.charAt(c.at))) c.at++;
}

function readToken(c: Cursor): string {
  const start = c.at;
  while (c.at < c.text.length && TOKEN_CHAR.test(c.text.charAt(c.at))) c.at++;
  return c.text.slice(start, c.at);
}

function readQuoted(c: Cursor): string {
  // Caller checked the opening quote.
  c.at++;
  let out = '';
  while (c.at < c.text.length) {
    const ch = c.text.charAt(c.at);
    if (ch === '\\' && c.at + 1 < c.text.length) {
      out += c.text.charAt(c.at + 1);
      c.at += 2;
      continue;
    }
    c.at++;
    if (ch === '"') return out;
    out += ch;
  }
  return out; // unterminated: keep what we have, cameras are not always tidy
}

/** Reads `name=value` at the cursor, or returns undefined (and rewinds) when the next item is a new scheme. */
function readParam(c: Cursor): [string, string] | undefined {
  const start = c.at;
  const name = readToken(c);
  skipSpace(c);
  if (name === '' || c.text.charAt(c.at) !== '=') {
    c.at = start;
    return undefined;
  }
  c.at++;
  skipSpace(c);
  const value = c.text.charAt(c.at) === '"' ? readQuoted(c) : readToken(c);
  return [name.toLowerCase(), value];
}

/** Parse one or more header values into challenges, in order. Unknown junk is skipped. */
export function parseChallenges(header: string | readonly string[] | undefined): Challenge[] {
  if (header === undefined) return [];
  const values = typeof header === 'string' ? [header] : header;
  const out: Challenge[] = [];
  for (const text of values) {
    const c: Cursor = { text, at: 0 };
    while (c.at < text.length) {
      skipSpaceAndCommas(c);
      const scheme = readToken(c);
      if (scheme === '') {
        c.at++; // not a token character: skip it rather than loop forever
        continue;
      }
      const challenge: Challenge = { scheme: scheme.toLowerCase(), params: {} };
      skipSpace(c);
      // token68 form (e.g. `Negotiate abc==`): keep it under `token68`.
      const token68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(text.slice(c.at));
      if (token68 && !/^[^=]+=[^=]/.test(token68[0])) {
        challenge.params.token68 = token68[0];
        c.at += token68[0].length;
      }
      for (;;) {
        skipSpaceAndCommas(c);
        const param = readParam(c);
        if (!param) break;
        challenge.params[param[0]] = param[1];
      }
      out.push(challenge);
    }
  }
  return out;
}

export const DIGEST_ALGORITHMS = ['MD5', 'MD5-sess', 'SHA-256', 'SHA-256-sess', 'SHA-512-256', 'SHA-512-256-sess'] as const;
export type DigestAlgorithm = (typeof DIGEST_ALGORITHMS)[number];

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque?: string;
  algorithm: DigestAlgorithm;
  /** `auth` when offered (we prefer it), else `auth-int`, else undefined (RFC 2069 style). */
  qop?: 'auth' | 'auth-int';
  stale: boolean;
  userhash: boolean;
}

/** Case-insensitive match of the `algorithm` parameter; absent means MD5 (RFC 7616 §3.3). */
export function digestAlgorithmOf(raw: string | undefined): DigestAlgorithm | undefined {
  if (raw === undefined || raw === '') return 'MD5';
  return DIGEST_ALGORITHMS.find((a) => a.toLowerCase() === raw.toLowerCase());
}

function qopOf(raw: string | undefined): DigestChallenge['qop'] | 'unsupported' {
  if (raw === undefined) return undefined;
  const offered = raw.split(',').map((q) => q.trim().toLowerCase());
  if (offered.includes('auth')) return 'auth';
  if (offered.includes('auth-int')) return 'auth-int';
  return 'unsupported';
}

const STRENGTH: Record<DigestAlgorithm, number> = {
  MD5: 1,
  'MD5-sess': 1,
  'SHA-256': 2,
  'SHA-256-sess': 2,
  'SHA-512-256': 3,
  'SHA-512-256-sess': 3,
};

/** The strongest Digest challenge we can answer, or undefined when there is none. */
export function pickDigestChallenge(challenges: readonly Challenge[]): DigestChallenge | undefined {
  let best: DigestChallenge | undefined;
  for (const ch of challenges) {
    if (ch.scheme !== 'digest') continue;
    const { realm, nonce } = ch.params;
    const algorithm = digestAlgorithmOf(ch.params.algorithm);
    const qop = qopOf(ch.params.qop);
    if (realm === undefined || nonce === undefined || !algorithm || qop === 'unsupported') continue;
    const candidate: DigestChallenge = {
      realm,
      nonce,
      algorithm,
      stale: (ch.params.stale ?? '').toLowerCase() === 'true',
      userhash: (ch.params.userhash ?? '').toLowerCase() === 'true',
      ...(ch.params.opaque !== undefined ? { opaque: ch.params.opaque } : {}),
      ...(qop !== undefined ? { qop } : {}),
    };
    if (!best || STRENGTH[candidate.algorithm] > STRENGTH[best.algorithm]) best = candidate;
  }
  return best;
}

export const offersBasic = (challenges: readonly Challenge[]): boolean => challenges.some((c) => c.scheme === 'basic');
