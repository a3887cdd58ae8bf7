import { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import type { ConnectionOptions, TLSSocket } from 'node:tls';
import { normalizeSha256Fingerprint } from '../protocol/certificate-pin.ts';

/**
 * A broker certificate pinned by its SHA-256 fingerprint (docs/mqtt.md, "A self-signed broker"):
 * for a broker whose certificate no CA signed, the admin gives the fingerprint instead of a CA
 * file. Node checks a chain before it would call `checkServerIdentity`, so a self-signed
 * certificate never reaches that hook; the pin is checked here instead, on the leaf certificate,
 * and nothing the MQTT client writes (the CONNECT packet, with the password) reaches the
 * socket before the pin matched.
 */

/** 64 hex digits, colons allowed, any case (the hub certificate pin's rules). */
export const isFingerprint = (text: string): boolean => normalizeSha256Fingerprint(text) !== undefined;

/** `AB:CD:...`, Node's `fingerprint256` spelling. Throws on anything else than 32 hex bytes. */
export function normalizeFingerprint(text: string): string {
  const pin = normalizeSha256Fingerprint(text);
  if (pin === undefined) throw new Error('a SHA-256 fingerprint is 64 hex digits, colons allowed');
  return pin;
}

export class FingerprintMismatchError extends Error {
  readonly code = 'MQTT_TLS_FINGERPRINT_MISMATCH';
  constructor(
    readonly expected: string,
    readonly got: string,
  ) {
    super(`broker certificate fingerprint ${got || '(none)'} does not match the pinned ${expected}; connection refused`);
  }
}

/**
 * A TLS connection that holds every write until the server's leaf certificate matched `pin`,
 * and destroys itself with a FingerprintMismatchError otherwise. Chain and host name are not
 * checked: the pin is the trust (a self-signed certificate has no chain to check).
 */
export function pinnedTlsStream(options: ConnectionOptions & { host: string; port: number }, pin: string): Duplex {
  const expected = normalizeFingerprint(pin);
  const held: Array<{ chunk: Buffer; callback: (error?: Error | null) => void }> = [];
  let verified = false;
  let socket: TLSSocket | undefined;
  const stream = new Duplex({
    read() {
      socket?.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      if (verified && socket) socket.write(chunk, (error) => callback(error ?? null));
      else held.push({ chunk, callback });
    },
    final(callback) {
      if (socket) socket.end(() => callback());
      else callback();
    },
    destroy(error, callback) {
      socket?.destroy();
      for (const h of held.splice(0)) h.callback(error ?? new Error('connection closed'));
      callback(error);
    },
  });
  socket = tlsConnect({ ...options, rejectUnauthorized: false });
  socket.on('secureConnect', () => {
    const got = socket?.getPeerCertificate()?.fingerprint256 ?? '';
    if (got.toUpperCase() !== expected) {
      stream.destroy(new FingerprintMismatchError(expected, got));
      return;
    }
    verified = true;
    for (const h of held.splice(0)) socket?.write(h.chunk, (error) => h.callback(error ?? null));
  });
  socket.on('data', (data: Buffer) => {
    if (!stream.push(data)) socket?.pause();
  });
  socket.on('end', () => stream.push(null));
  socket.on('error', (error) => stream.destroy(error));
  socket.on('close', () => {
    if (!stream.destroyed) stream.destroy();
  });
  return stream;
}
