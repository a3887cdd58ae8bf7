import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';

/**
 * A self-signed X.509 v3 certificate made with node:crypto only (no openssl binary): an
 * EC P-256 key, ecdsa-with-SHA256, subjectAltName IP 127.0.0.1 and DNS localhost. vendor_b
 * consoles serve exactly this kind of certificate, so clients must be able to skip
 * verification for them (docs/camera-formats.md "vendor_b auth and TLS").
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

const utcTime = (d: Date): Buffer => {
  const s = d.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return der(0x17, Buffer.from(`${s}Z`, 'ascii'));
};

const commonName = (cn: string): Buffer => seq(set(seq(oid('2.5.4.3'), der(0x0c, Buffer.from(cn, 'utf8')))));

const ECDSA_SHA256 = seq(oid('1.2.840.10045.4.3.2'));

export interface SelfSigned {
  key: string;
  cert: string;
}

/**
 * A DER INTEGER must be positive and minimal: its first byte may be neither 0x00 followed by a
 * byte under 0x80 nor have its top bit set. Clearing only the top bit left such a 0x00 first
 * byte in about one certificate in 256, and OpenSSL rejects it ("illegal padding"), so the
 * first byte is forced into 0x01-0x7f.
 */
export function certificateSerial(random: Uint8Array): Buffer {
  const serial = Buffer.from(random);
  serial[0] = (serial[0] ?? 0) & 0x7f || 0x01;
  return serial;
}

export function selfSignedCertificate(ip = '127.0.0.1', days = 30): SelfSigned {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const serial = certificateSerial(randomBytes(8));
  const now = new Date();
  const name = commonName('alpr-simulator');
  const altNames = seq(der(0x87, Buffer.from(ip.split('.').map(Number))), der(0x82, Buffer.from('localhost', 'ascii')));
  const extensions = der(0xa3, seq(seq(oid('2.5.29.17'), der(0x04, altNames))));
  const tbs = seq(
    der(0xa0, der(0x02, Buffer.from([2]))),
    der(0x02, serial),
    ECDSA_SHA256,
    name,
    seq(utcTime(new Date(now.getTime() - 60_000)), utcTime(new Date(now.getTime() + days * 86_400_000))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    extensions,
  );
  const signature = sign('sha256', tbs, privateKey); // DER ECDSA-Sig-Value
  const certificate = seq(tbs, ECDSA_SHA256, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const body = certificate.toString('base64').replace(/(.{64})/g, '$1\n');
  return {
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    cert: `-----BEGIN CERTIFICATE-----\n${body}${body.endsWith('\n') ? '' : '\n'}-----END CERTIFICATE-----\n`,
  };
}
