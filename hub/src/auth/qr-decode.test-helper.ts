import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

/**
 * Reads a `data:image/png;base64,...` QR code back into its text with an independent PNG
 * decoder (pngjs) and QR reader (jsQR), as a phone camera would. Null when either refuses.
 */
// jsqr is CommonJS typed as an ES default export: under NodeNext its function is `.default`.
export function decodeQrDataUri(uri: string): { text: string; width: number; height: number } | null {
  const prefix = 'data:image/png;base64,';
  if (!uri.startsWith(prefix)) return null;
  const png = PNG.sync.read(Buffer.from(uri.slice(prefix.length), 'base64'));
  const code = jsQRModule.default(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  return code === null ? null : { text: code.data, width: png.width, height: png.height };
}
