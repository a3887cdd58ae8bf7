import t from 'tap';
import { eventsListOf, parseEventsList } from './events-list.ts';
import { context, fixtureJson } from './fixtures.test-helper.ts';

const mixed = fixtureJson('events-list-mixed.json') as Record<string, unknown>[];

t.test('mixed list: ended plates yielded, the rest ignored, cursor held at the open event', async (t) => {
  const out = parseEventsList(mixed, context);
  t.same(
    out.detections.map((d) => d.detection.plate.text),
    ['XY12ABC', 'AB123CD'],
  );
  t.same(out.errors, []);
  t.equal(out.ignored, 4, 'motion, ring, plate without text, in-progress');
  // Largest ended start is 1900000400000, but the in-progress event began at 1900000250000.
  t.equal(out.cursor, '1900000250000');
});

t.test('without an open event the cursor is the largest ended start, not the last item', async (t) => {
  const ended = mixed.filter((e) => e.end !== null).reverse();
  const out = parseEventsList(ended, context);
  t.equal(out.cursor, '1900000400000');
  t.equal(out.detections.length, 2);
});

t.test('the in-progress event is yielded once a later poll shows it ended', async (t) => {
  const later = { ...mixed[5], end: 1900000259000 };
  const out = parseEventsList([later], context);
  t.same(
    out.detections.map((d) => d.detection.plate.text),
    ['QQ99ZZZ'],
  );
  t.equal(out.cursor, '1900000250000');
});

t.test('a broken item is an error at its index; its neighbours still parse', async (t) => {
  const items: unknown[] = [
    { ...mixed[0], metadata: 'oops' },
    mixed[1],
    { ...mixed[0], id: 'ff23456789abcdef01234567', start: { $date: 1 } },
    42,
    null,
    ['nested'],
  ];
  const out = parseEventsList(items, context);
  t.same(
    out.detections.map((d) => d.detection.plate.text),
    ['AB123CD'],
  );
  t.same(
    out.errors.map((e) => e.item),
    [0, 2, 3, 4, 5],
  );
  t.match(out.errors[0]?.reason, /metadata/);
  t.equal(out.cursor, '1900000100000', 'the broken ended item at 1900000000000 is below it anyway');
});

t.test('empty list: nothing, and no cursor so the runner keeps its own', async (t) => {
  t.same(parseEventsList([], context), { detections: [], errors: [], ignored: 0 });
});

t.test('root shapes', async (t) => {
  t.same(eventsListOf([1]), [1]);
  t.same(eventsListOf({ events: [2] }), [2]);
  t.equal(eventsListOf({ events: 'x' }), undefined);
  t.equal(eventsListOf('x'), undefined);
});
