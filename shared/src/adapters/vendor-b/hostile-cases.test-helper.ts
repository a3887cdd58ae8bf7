/**
 * Hostile vendor_b inputs, shared by `index.test.ts` (each is reported, never thrown) and
 * `scripts/bench/adapter-hostile.ts` (how long each takes). Built on call: some are 5 MB.
 */
import { deflateSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { encodeFrame, encodePacket, FRAME_ACTION, FRAME_DATA, joinFrames } from './packet-encoder.ts';
import { fixtureJson } from './fixtures.test-helper.ts';

/** 32 MiB of '{' deflated: a valid packet whose data frame would inflate 32x past the 1 MiB cap. */
export function zipBombPacket(): { packet: Uint8Array; wireBytes: number } {
  const bombData = deflateSync(Buffer.alloc(32 * 1024 * 1024, 0x7b));
  const bombHeader = Buffer.from([2, 1, 1, 0, 0, 0, 0, 0]);
  bombHeader.writeUInt32BE(bombData.length, 4);
  const packet = joinFrames(encodeFrame(FRAME_ACTION, { payload: { action: 'add', modelKey: 'event', id: 'bomb' } }), Buffer.concat([bombHeader, bombData]));
  return { packet, wireBytes: bombData.length };
}

export function hostileVendorBInputs(): [string, Uint8Array][] {
  const add = fixtureJson('event-in-progress-add.json') as Record<string, unknown>;
  let deepArray = '';
  for (let i = 0; i < 100_000; i += 1) deepArray += '[';
  const deepObject = `{"id":"d","type":"smartDetectZone","metadata":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
  const hugeSize = Buffer.from(encodePacket({ action: 'add', modelKey: 'event', id: 'x' }, add));
  hugeSize.writeUInt32BE(0xfffffff0, 4);
  const emptyData = joinFrames(
    encodeFrame(FRAME_ACTION, { payload: { action: 'add', modelKey: 'event', id: 'empty' } }),
    encodeFrame(FRAME_DATA, { payload: new Uint8Array(), format: 3, deflate: false }),
  );
  const bombView = zipBombPacket().packet;
  const wrongTypes = JSON.stringify([
    { id: 1, type: ['smartDetectZone'], start: '1900000000000x', camera: {}, metadata: [] },
    { id: 'w', type: 'smartDetectZone', start: 1, end: 2, metadata: { detectedThumbnails: [{ group: 'g' }] } },
  ]);
  return [
    ['deep array', Buffer.from(deepArray + ']'.repeat(100_000))],
    ['deep object', Buffer.from(deepObject)],
    ['5 MB junk', randomBytes(5 * 1024 * 1024)],
    ['5 MB of brackets', Buffer.alloc(5 * 1024 * 1024, 0x5b)],
    ['huge declared size', hugeSize],
    ['zip bomb', bombView],
    ['empty data frame', emptyData],
    ['wrong JSON types', Buffer.from(wrongTypes)],
  ];
}
