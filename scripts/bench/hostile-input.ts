/**
 * Worst-case time one hostile request can hold the appliance's event loop on the vendor_b
 * push route (issue 19 §3; docs/performance.md "Bounded work per request"). Run:
 * `npx tsx scripts/bench/hostile-input.ts`. Prints the median and worst of several runs.
 */
import { createIngestApp } from '../../appliance/src/cameras/vendor-a-push.ts';
import { MAX_JSON_ARRAY_ELEMENTS, MAX_JSON_ITEMS } from '../../shared/src/adapters/vendor-b/json.ts';
import { pushPath } from '../../appliance/src/http/local-paths.ts';

const noop = (): undefined => undefined;
const app = createIngestApp({
  cameras: () => [],
  sink: { accept: async () => ({ outcome: 'stored' }) } as never,
  log: { debug: noop, info: noop, warn: noop, error: noop },
  clock: { now: () => Date.now() },
});
const numbers = (n: number): string => Array.from({ length: n }, (_, i) => i % 10).join(',');
const event = (types: string): string => `{"id":"e1","modelKey":"event","type":"smartDetectZone","start":1,"camera":"c1","smartDetectTypes":[${types}]}`;
// The largest bodies that still pass the shape limits, every element invalid for zod.
const perEvent = MAX_JSON_ITEMS - 1;
const events = Math.floor((MAX_JSON_ARRAY_ELEMENTS - 1) / (perEvent + 1));
const cases: [string, string][] = [
  ['470,000 numbers in one event (refused before parsing)', event(numbers(470_000))],
  [`${MAX_JSON_ITEMS} numbers in one event (largest accepted array)`, event(numbers(MAX_JSON_ITEMS))],
  [`${events} events x ${perEvent} numbers (largest accepted total)`, `[${Array.from({ length: events }, () => event(numbers(perEvent))).join(',')}]`],
];
for (const [name, body] of cases) {
  const times: number[] = [];
  let status = 0;
  for (let i = 0; i < 7; i += 1) {
    const started = performance.now();
    const res = await app.request(pushPath('vendor_b'), { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.text();
    status = res.status;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${name}: ${(body.length / 1024).toFixed(0)} KB -> ${status}; median ${times[3]?.toFixed(1)} ms, worst ${times[6]?.toFixed(1)} ms`);
}
