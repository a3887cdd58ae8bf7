import QRCode from 'qrcode';

/**
 * `qr_code_uri` for `GET /auth/2fa/setup`: a PNG data URI. Level M (15 % recovery) is what
 * authenticator apps expect for otpauth URIs; 6 px per module and the standard 4-module quiet
 * zone keep a 136-byte URI (version 8, 49 modules) about 340 px wide, easy to scan off a screen.
 */
export async function qrPngDataUri(text: string): Promise<string> {
  return QRCode.toDataURL(text, { errorCorrectionLevel: 'M', type: 'image/png', scale: 6, margin: 4 });
}
