import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';

/**
 * A self-signed X.509 v3 certificate made with node:crypto only (no openssl binary and no
 * library: the hub must generate one on a bare server at first start). EC P-256 key,
 * ecdsa-with-SHA256. Appliances trust it by its SHA-256 pin, not by a CA, so its names
 * only matter to browsers that the admin tells to accept it. The vendor_b console simulator
 * (scripts/simulators/self-signed.ts) serves one made here too, as real consoles do.
 */

function der(tag: number, content: Uint8Array): Buffer {
  const n = content.length;
  let length: number[];
  if (n < 0x80) length = [n];
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    length = [0x80 | bytes.length, ...bytes];
  }
  return Buffer.concat([Buffer.from([tag, ...length]), content]);
}

const seq = (...items: Uint8Array[]): Buffer => der(0x30, Buffer.concat(items));
const set = (...items: Uint8Array[]): Buffer => der(0x31, Buffer.concat(items));

function oid(dotted: string): Buffer {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const out = [40 * a + b];
  for (const v of rest) {
    const chunk: number[] = [v & 0x7f];
    for (let x = v >>> 7; x > 0; x >>>= 7) chunk.unshift(0x80 | (x & 0x7f));
    out.push(...chunk);
  }
  return der(0x06, Buffer.from(out));
}

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5). */
const time = (d: Date): Buffer => {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return d.getUTCFullYear() < 2050 ? der(0x17, Buffer.from(`${s.slice(2)}Z`, 'ascii')) : der(0x18, Buffer.from(`${s}Z`, 'ascii'));
};

const commonName = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));
const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

function ipBytes(ip: string): Buffer | undefined {
  if (isIP(ip) === 4) return Buffer.from(ip.split('.').map(Number));
  return undefined;
}

/** A positive, minimal DER INTEGER: first byte in 0x01-0x7f (OpenSSL refuses "illegal padding"). */
export function certificateSerial(random: Uint8Array): Buffer {
  const serial = Buffer.from(random);
  serial[0] = (serial[0] ?? 0) & 0x7f || 0x01;
  return serial;
}

export interface GeneratedCertificate {
  keyPem: string;
  certPem: string;
}

/**
 * `names`: DNS names and IPv4 addresses for subjectAltName (the public URL's host, the
 * machine's name). `days`: 10 years by default; the pin, not the date, is what appliances
 * check, and a rotation is a planned procedure (docs/security.md "Rotating the hub
 * certificate"), not something an expiry should force at 3 a.m.
 */
export function generateSelfSignedCertificate(input: {
  names: readonly string[];
  now: Date;
  days?: number;
  /** The subject's common name; by default the first DNS name. */
  subject?: string;
}): GeneratedCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const days = input.days ?? 3650;
  const names = [...new Set(input.names.filter((n) => n !== '' && n !== '0.0.0.0' && n !== '::'))];
  const subject = commonName((input.subject ?? names.find((n) => isIP(n) === 0) ?? names[0] ?? 'alpr-hub').slice(0, 64));
  const alt = names.map((n) => {
    const ip = ipBytes(n);
    return ip ? der(0x87, ip) : der(0x82, Buffer.from(n, 'ascii'));
  });
  const extensions = alt.length > 0 ? [der(0xa3, seq(seq(oid('2.5.29.17'), der(0x04, seq(...alt)))))] : [];
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, certificateSerial(randomBytes(16))),
    ECDSA_SHA256,
    subject,
    seq(time(new Date(input.now.getTime() - 60_000)), time(new Date(input.now.getTime() + days * 86_400_000))),
    subject,
    publicKey.export({ type: 'spki', format: 'der' }),
    ...extensions,
  );
  const signature = sign('sha256', tbs, privateKey);
  const certificate = seq(tbs, ECDSA_SHA256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const body = certificate.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certPem: `-----BEGIN CERTIFICATE-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
  };
}
