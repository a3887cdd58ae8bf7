import { isIP } from 'node:net';
import { connect } from 'node:tls';
import { HUB_TLS } from './tls.ts';

/**
 * Before a claim over https (docs/security.md "Certificate pinning"): which certificate does
 * the hub present, and is it publicly trusted for this name? One TLS 1.3 handshake, no
 * request: nothing is sent. A certificate that is not publicly trusted is claimed against
 * only once the installer confirms its fingerprint.
 */
export type CertificateProbe = { ok: true; sha256: string; publiclyTrusted: boolean; problem?: string } | { ok: false; message: string };

export function probeHubCertificate(hubUrl: string, timeoutMs = 10_000): Promise<CertificateProbe> {
  const url = new URL(hubUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({
      ...HUB_TLS,
      host,
      port: Number(url.port || 443),
      ...(isIP(host) === 0 ? { servername: host } : {}),
      // Checked below instead: an untrusted certificate is an answer here, not a failure.
      rejectUnauthorized: false,
    });
    const timer = setTimeout(() => socket.destroy(new Error(`no TLS 1.3 handshake within ${timeoutMs / 1000} s`)), timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const sha256 = socket.getPeerCertificate().fingerprint256;
      const problem = socket.authorizationError ? String(socket.authorizationError) : undefined;
      socket.end();
      resolve({ ok: true, sha256, publiclyTrusted: socket.authorized, ...(problem ? { problem } : {}) });
    });
    socket.once('error', (error: Error & { code?: string }) => {
      clearTimeout(timer);
      resolve({ ok: false, message: error.code ? `${error.code}: ${error.message}` : error.message });
    });
  });
}
