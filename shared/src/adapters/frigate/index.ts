import type { Adapter } from '../types.ts';
import { neverThrows } from '../reader/common.ts';
import { parseFrigateEvent, recognizesFrigate } from './parse.ts';

/** Frigate's `frigate/events` MQTT messages (docs/readers.md "Frigate"). */
export const frigate: Adapter = {
  type: 'frigate',
  recognizes: recognizesFrigate,
  parse: neverThrows('frigate', parseFrigateEvent),
};
