import t from 'tap';
import { addFrame, emptyVoter, endPassages, flushPassages } from './passage-vote.ts';
import type { VoteConfig } from './passage-vote.ts';
import type { PlateRead } from '../reader/types.ts';

const config: VoteConfig = { gapMs: 2_000, minConfidence: 0.3, maxPassageMs: 60_000 };
const read = (plate: string, confidence: number, x = 10): PlateRead => ({ plate, confidence, box: { x, y: 20, width: 100, height: 30 }, candidates: [] });

t.test('frames of one passage give one result with the voted plate', async (t) => {
  const state = emptyVoter<string>();
  t.same(addFrame(state, 0, [read('ABC1234', 0.8)], 'f0', config), []);
  t.same(addFrame(state, 250, [read('ABC1Z34', 0.6)], 'f1', config), [], 'a one-edit OCR variant joins the passage');
  t.same(addFrame(state, 500, [read('ABC1234', 0.9)], 'f2', config), []);
  t.same(addFrame(state, 750, [], 'f3', config), []);
  t.equal(endPassages(state, 2_400, config).length, 0, 'not yet: 1.9 s since the last read');
  const ended = endPassages(state, 2_500, config);
  t.equal(ended.length, 1);
  const r = ended[0];
  t.equal(r?.plate, 'ABC1234');
  t.equal(r?.frame, 'f2', 'the best frame of the winning text');
  t.equal(r?.at, 500);
  t.equal(r?.reads, 3);
  t.same(r?.candidates, [{ plate: 'ABC1Z34', confidence: 0.6 }]);
  t.equal(r?.confidence, Math.round(((0.8 + 0.9) / 2) * (2 / 3) * 1000) / 1000, 'mean confidence scaled by the share of votes');
  t.same(state.open, [], 'the passage is gone');
});

t.test('two plates in view are two passages; a new frame ends the old ones', async (t) => {
  const state = emptyVoter<number>();
  addFrame(state, 0, [read('AAA111', 0.9), read('ZZZ999', 0.7, 300)], 0, config);
  addFrame(state, 1_000, [read('AAA111', 0.9)], 1, config);
  const ended = addFrame(state, 2_100, [read('BBB222', 0.8)], 2, config);
  t.same(
    ended.map((p) => p.plate),
    ['ZZZ999'],
    'ZZZ999 unseen for 2.1 s ends; AAA111 (1.1 s) does not',
  );
  const rest = flushPassages(state);
  t.same(rest.map((p) => p.plate).sort(), ['AAA111', 'BBB222']);
});

t.test('low-confidence noise is ignored; two edits apart is another plate', async (t) => {
  const state = emptyVoter<number>();
  addFrame(state, 0, [read('NOISE', 0.1)], 0, config);
  t.same(state.open, []);
  addFrame(state, 0, [read('ABC1234', 0.9)], 0, config);
  addFrame(state, 100, [read('XBC1239', 0.9)], 1, config);
  t.equal(state.open.length, 2);
});

t.test('reader alternatives become candidates, without repeating the plate', async (t) => {
  const state = emptyVoter<number>();
  addFrame(
    state,
    0,
    [
      {
        ...read('ABC123', 0.9),
        candidates: [
          { plate: 'A8C123', confidence: 0.5 },
          { plate: 'ABC123', confidence: 0.4 },
        ],
      },
    ],
    0,
    config,
  );
  const [r] = flushPassages(state);
  t.same(r?.candidates, [{ plate: 'A8C123', confidence: 0.5 }]);
  t.equal(r?.confidence, 0.9);
});

t.test('a parked car is closed after maxPassageMs', async (t) => {
  const state = emptyVoter<number>();
  const short = { ...config, maxPassageMs: 5_000 };
  let ended: unknown[] = [];
  for (let at = 0; at <= 5_000 && ended.length === 0; at += 500) ended = addFrame(state, at, [read('PARK1', 0.9)], at, short);
  t.equal(ended.length, 1);
});
