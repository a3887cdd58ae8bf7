import type { Adapter } from '../types.ts';
import { neverThrows } from '../reader/common.ts';
import { parseCodeProjectAi, recognizesCodeProjectAi } from './parse.ts';

/** CodeProject.AI ALPR answers, relayed (bare or in an `ai_dump`); docs/readers.md, docs/camera-formats.md. */
export const codeProjectAi: Adapter = {
  type: 'codeproject_ai',
  recognizes: (input) => {
    try {
      return recognizesCodeProjectAi(input);
    } catch {
      return false;
    }
  },
  parse: neverThrows('codeproject_ai', parseCodeProjectAi),
};
