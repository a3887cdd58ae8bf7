import t from 'tap';
import { createLog } from '../log.ts';
import { createWakeableLoop } from './wakeable-loop.ts';

const log = createLog('silent');

/** Resolves when `check` holds, polling every few ms; rejects after `ms` (a hang, not a timing claim). */
async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

t.test('a wake-up ends the sleep at once when no minimum interval is set', async (t) => {
  let passes = 0;
  const loop = createWakeableLoop({ channel: 'c', name: 'test', log, errorWaitMs: 60_000, pass: async () => (passes++, 60_000) });
  await loop.start();
  await until(() => passes === 1);
  loop.wake();
  await until(() => passes === 2);
  loop.wake();
  await until(() => passes === 3);
  await loop.stop();
  t.equal(passes, 3, 'one pass per wake-up');
});

t.test('wake-ups sooner than the minimum interval are gathered into one pass', async (t) => {
  let passes = 0;
  const loop = createWakeableLoop({
    channel: 'c',
    name: 'test',
    log,
    errorWaitMs: 60_000,
    minIntervalMs: 60_000,
    pass: async () => (passes++, 60_000),
  });
  await loop.start();
  await until(() => passes === 1);
  for (let i = 0; i < 20; i++) {
    loop.wake();
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  // Had any wake-up started a pass, it would have begun by now (each took < 5 s above).
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.equal(passes, 1, 'twenty wake-ups inside the interval: no second pass yet');

  // stop() must not wait out the interval: it would hang for a minute.
  const stopped = await Promise.race([loop.stop().then(() => 'stopped'), new Promise((resolve) => setTimeout(() => resolve('still holding'), 10_000))]);
  t.equal(stopped, 'stopped', 'stop() ends the hold');
  t.equal(loop.running, false);
});

t.test('after the interval, a wake-up that came during it runs the next pass', async (t) => {
  let passes = 0;
  const loop = createWakeableLoop({
    channel: 'c',
    name: 'test',
    log,
    errorWaitMs: 60_000,
    minIntervalMs: 300,
    pass: async () => (passes++, 60_000),
  });
  await loop.start();
  await until(() => passes === 1);
  loop.wake();
  loop.wake();
  await until(() => passes === 2);
  // The second wake-up was gathered into pass 2; nothing else is due for a minute.
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(passes, 2, 'the wake-ups of one interval made one pass');
  loop.wake();
  await until(() => passes === 3);
  await loop.stop();
});

t.test('a pass that asks to go again at once is not held back by the interval', async (t) => {
  let passes = 0;
  const loop = createWakeableLoop({
    channel: 'c',
    name: 'test',
    log,
    errorWaitMs: 60_000,
    minIntervalMs: 60_000,
    // A full claim: more is waiting (the first three passes), then the queue is empty.
    pass: async () => (++passes <= 3 ? 0 : 60_000),
  });
  await loop.start();
  await until(() => passes === 4);
  await loop.stop();
  t.equal(passes, 4, 'three full passes back to back, then the sleep');
});
