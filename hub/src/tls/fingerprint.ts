import { X509Certificate } from 'node:crypto';

/**
 * SHA-256 fingerprint of a PEM certificate (its DER bytes), in the form `openssl x509
 * -fingerprint -sha256` prints and the appliance's setup page accepts: 32 upper-case hex
 * pairs joined by colons. Of the first certificate when given a chain: that is the one the
 * hub presents and the appliance pins.
 */
export function certificateSha256(pem: string | Buffer): string {
  return new X509Certificate(pem).fingerprint256;
}
