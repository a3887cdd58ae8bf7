import type { Adapter } from '../types.ts';
import { parseVendorB } from './parse.ts';
import { recognizesVendorB } from './recognize.ts';
import { openVendorBStream } from './stream.ts';

/** vendor_b (UniFi-Protect-style); formats in docs/camera-formats.md "vendor_b", choices in docs/adapters.md. */
export const vendorB: Adapter = {
  type: 'vendor_b',
  recognizes: (input) => {
    try {
      return recognizesVendorB(input);
    } catch {
      return false;
    }
  },
  parse: (input, context) => {
    try {
      return parseVendorB(input, context);
    } catch (error) {
      // Defence in depth: the parsers return errors rather than throw (error rule 2 in
      // docs/cameras.md).
      return { detections: [], errors: [], ignored: 0, failure: `vendor_b parser fault: ${String(error)}` };
    }
  },
  openStream: openVendorBStream,
};

export { VendorBStream, MAX_REMEMBERED_EVENTS } from './stream.ts';
export { encodePacket, encodeFrame, joinFrames } from './packet-encoder.ts';
