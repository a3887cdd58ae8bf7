import type { Adapter } from '../types.ts';
import { neverThrows } from '../reader/common.ts';
import { parseOpenAlpr, recognizesOpenAlpr } from './parse.ts';

/** The OpenALPR agent's HTTP posts (group, per-frame results); docs/readers.md, docs/camera-formats.md. */
export const openAlpr: Adapter = {
  type: 'openalpr',
  recognizes: (input) => {
    try {
      return recognizesOpenAlpr(input);
    } catch {
      return false;
    }
  },
  parse: neverThrows('openalpr', parseOpenAlpr),
};
