import type { Adapter } from '../types.ts';
import { neverThrows } from '../reader/common.ts';
import { parseGenericJson, recognizesGenericJson } from './parse.ts';

/** The generic reader JSON of docs/readers.md "Generic JSON". */
export const genericJson: Adapter = {
  type: 'generic_json',
  recognizes: recognizesGenericJson,
  parse: neverThrows('generic_json', parseGenericJson),
};
