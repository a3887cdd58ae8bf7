import type { Adapter } from '../types.ts';
import { neverThrows } from '../reader/common.ts';
import { parsePlateRecognizer, recognizesPlateRecognizer } from './parse.ts';

/** Plate Recognizer Stream and Snapshot webhooks; docs/readers.md (setup), docs/camera-formats.md (format). */
export const plateRecognizer: Adapter = {
  type: 'plate_recognizer',
  recognizes: (input) => {
    try {
      return recognizesPlateRecognizer(input);
    } catch {
      return false;
    }
  },
  parse: neverThrows('plate_recognizer', parsePlateRecognizer),
};
