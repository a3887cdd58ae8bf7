import t from 'tap';
import { Outbox } from './outbox.ts';

t.test('100 a second: a burst goes at once, the rest waits its turn', async (t) => {
  const box = new Outbox(1_000, 100);
  for (let i = 0; i < 150; i++) box.offer({ kind: 'other', text: String(i) });
  const first = box.take(0);
  t.equal(first.messages.length, 100);
  t.ok(first.waitMs >= 1 && first.waitMs <= 10, `then one every 10 ms (wait ${first.waitMs})`);
  t.equal(box.take(5).messages.length, 0);
  t.equal(box.take(10).messages.length, 1);
  t.equal(box.take(1_000).messages.length, 49, 'all sent within the next second');
  t.same(box.take(2_000), { messages: [], waitMs: 0 });
});

t.test('bounded: detections dropped and counted; an alert displaces a detection; alerts alone overflow', async (t) => {
  const box = new Outbox(3, 100);
  t.equal(box.offer({ kind: 'detection', text: 'd1' }), 'queued');
  t.equal(box.offer({ kind: 'alert', text: 'a1' }), 'queued');
  t.equal(box.offer({ kind: 'detection', text: 'd2' }), 'queued');
  t.equal(box.offer({ kind: 'detection', text: 'd3' }), 'dropped');
  t.equal(box.offer({ kind: 'alert', text: 'a2' }), 'queued', 'displaces d1');
  t.equal(box.offer({ kind: 'alert', text: 'a3' }), 'queued', 'displaces d2');
  t.equal(box.offer({ kind: 'alert', text: 'a4' }), 'overflow', 'nothing left to displace');
  t.equal(box.dropped, 3);
  t.equal(box.takeUnreportedDrops(), 3);
  t.equal(box.takeUnreportedDrops(), 0);
  t.same(
    box.take(0).messages.map((m) => m.text),
    ['a1', 'a2', 'a3'],
    'order kept',
  );
});
