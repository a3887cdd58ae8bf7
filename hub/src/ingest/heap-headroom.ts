import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the hub's heap grow past what survived the last full collection, in
 * percent. V8's default sizes the limit dynamically and, for a hub that holds ~30 MB of live
 * objects while uploads stream 4.3 MB bodies through it, kept the limit so close to the heap
 * that the young generation's next promotion could pass it: a full collection (5-20 ms on the
 * event loop, a core's worth of marking beside it) every second or third batch of 50 with
 * images (measured with --trace-gc: 79 in a 120-batch run; 43 at 100 %, 20 at 300 %). 200 %
 * lets the heap reach three times its live size (~90 MB here), a trade a server makes gladly.
 */
export const HUB_HEAP_GROWING_PERCENT = 200;

/**
 * Applies HUB_HEAP_GROWING_PERCENT to this process. V8 reads the flag each time it sets a
 * new limit, so it holds from the next full collection on; called first thing by the hub
 * server (main.ts) and by the ingest benchmark, which must measure the hub as it runs.
 */
export function giveHeapHeadroom(): void {
  setFlagsFromString(`--heap-growing-percent=${HUB_HEAP_GROWING_PERCENT}`);
}
