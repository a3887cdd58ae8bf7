import { generateSelfSignedCertificate } from '@alpr/shared/tls/self-signed';

/**
 * The certificate a vendor_b console serves: self-signed, subjectAltName IP 127.0.0.1 and DNS
 * localhost, so clients must be able to skip verification for them (docs/camera-formats.md
 * "vendor_b auth and TLS"). Made by the same code that gives the hub its first certificate.
 */
export { certificateSerial } from '@alpr/shared/tls/self-signed';

export interface SelfSigned {
  key: string;
  cert: string;
}

export function selfSignedCertificate(ip = '127.0.0.1', days = 30): SelfSigned {
  const { keyPem, certPem } = generateSelfSignedCertificate({ names: [ip, 'localhost'], now: new Date(), days, subject: 'alpr-simulator' });
  return { key: keyPem, cert: certPem };
}
