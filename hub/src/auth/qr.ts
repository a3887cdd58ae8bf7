import { matrixToPng } from './png.ts';
import { encodeQr } from './qr-matrix.ts';

/** `qr_code_uri` for `GET /auth/2fa/setup`: a PNG data URI, 6 px per module, 4-module margin. */
export async function qrPngDataUri(text: string): Promise<string> {
  const matrix = encodeQr(text);
  return `data:image/png;base64,${matrixToPng(matrix.modules, 6, 4).toString('base64')}`;
}
