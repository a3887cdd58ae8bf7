/**
 * Hostile camera payloads: how long each adapter takes to refuse them. The tests
 * (`vendor-a/hostile.test.ts`, `vendor-b/index.test.ts`) check that each one is refused
 * without throwing; the time lives here because tests never assert wall-clock time.
 * A catastrophic expansion (billion laughs, a zip bomb) or a quadratic scan would show up
 * as seconds against a baseline of well under a millisecond for a real alert.
 *
 *   npx tsx scripts/bench/adapter-hostile.ts [--runs 5]
 *
 * Prints per case the median and worst time, the payload size, and the ratio of the median
 * to parsing one real vendor_a alert (the baseline).
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { hostileVendorAInputs, wideVendorAInputs } from '../../shared/src/adapters/vendor-a/hostile-cases.test-helper.ts';
import { vendorA } from '../../shared/src/adapters/vendor-a/index.ts';
import { fixture } from '../../shared/src/adapters/vendor-a/fixtures.test-helper.ts';
import { hostileVendorBInputs } from '../../shared/src/adapters/vendor-b/hostile-cases.test-helper.ts';
import { vendorB } from '../../shared/src/adapters/vendor-b/index.ts';
import { context as vendorBContext } from '../../shared/src/adapters/vendor-b/fixtures.test-helper.ts';
import type { ParseInput } from '../../shared/src/adapters/types.ts';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Math.max(1, Number(args.runs) || 5);

function time(fn: () => void, runs = RUNS): { median: number; worst: number } {
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    fn();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)] ?? 0, worst: samples[samples.length - 1] ?? 0 };
}

const alertInput: ParseInput = { body: fixture('alert-hikvision-ns.xml'), contentType: 'application/xml' };
const camera = { camera: { mac: '001122aabbcc' } };
// Warm the parsers once so the baseline is not the JIT's first pass.
for (let i = 0; i < 50; i += 1) vendorA.parse(alertInput, camera);
// 200 runs: one alert takes well under a millisecond, so a few runs would be mostly noise.
const baseline = time(() => vendorA.parse(alertInput, camera), 200).median;

const rows: { adapter: string; label: string; bytes: number; median: number; worst: number }[] = [];
for (const [label, input] of [...hostileVendorAInputs(), ...wideVendorAInputs()]) {
  const t = time(() => {
    vendorA.recognizes(input);
    vendorA.parse(input, camera);
  });
  rows.push({ adapter: 'vendor_a', label, bytes: input.body.length, ...t });
}
for (const [label, body] of hostileVendorBInputs()) {
  const t = time(() => {
    vendorB.recognizes({ body });
    vendorB.parse({ body }, vendorBContext);
  });
  rows.push({ adapter: 'vendor_b', label, bytes: body.length, ...t });
}

console.log(`hostile payloads, ${RUNS} runs each; baseline: one real vendor_a alert parses in ${baseline.toFixed(3)} ms (median)`);
console.log(`${'adapter'.padEnd(9)} ${'case'.padEnd(48)} ${'bytes'.padStart(10)} ${'p50 ms'.padStart(9)} ${'max ms'.padStart(9)} ${'x alert'.padStart(9)}`);
for (const r of rows) {
  const ratio = baseline > 0 ? r.median / baseline : Number.NaN;
  console.log(
    `${r.adapter.padEnd(9)} ${r.label.slice(0, 48).padEnd(48)} ${String(r.bytes).padStart(10)} ${r.median.toFixed(1).padStart(9)} ${r.worst.toFixed(1).padStart(9)} ${ratio.toFixed(0).padStart(9)}`,
  );
}
const slowest = rows.reduce((a, b) => (b.worst > a.worst ? b : a));
console.log(`slowest: ${slowest.adapter} ${slowest.label}, ${slowest.worst.toFixed(0)} ms worst of ${RUNS}`);
