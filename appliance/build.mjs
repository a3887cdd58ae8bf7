// Bundles the appliance into one ESM file (appliance/dist/main.mjs) for the device image and
// for measuring what the device runs: plain `node`, no TypeScript loader in memory.
// npm dependencies stay external (native better-sqlite3 among them); the workspace's own
// TypeScript (appliance + @alpr/shared) is compiled in.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const pkg = (p) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'));
const external = [...Object.keys(pkg('./package.json').dependencies), ...Object.keys(pkg('../shared/package.json').dependencies)].filter(
  (name) => !name.startsWith('@alpr/'),
);

// An optional folder argument writes the three files there instead of dist/ (the end-to-end
// tests build their own copy from the current sources once per test file: test/e2e/appliance-bundle.ts).
// The folder must lie under appliance/ so the bundle's npm imports resolve as from dist/.
const outdir = process.argv[2] ? resolve(process.argv[2]) : new URL('./dist', import.meta.url).pathname;

const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external,
  sourcemap: true,
  logLevel: 'warning',
};

// The ordinary cameras' frame worker (src/cameras/frame-jobs.ts loads it from beside main.mjs).
await build({
  ...common,
  entryPoints: [new URL('./src/cameras/frame-worker.ts', import.meta.url).pathname],
  outfile: `${outdir}/frame-worker.mjs`,
});

await build({
  ...common,
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: `${outdir}/main.mjs`,
});
// The plate reader's worker thread is its own entry: open-reader.ts starts it from beside main.mjs.
await build({
  ...common,
  entryPoints: [new URL('./src/reader/reader-worker.ts', import.meta.url).pathname],
  outfile: `${outdir}/reader-worker.mjs`,
});
console.log(`built ${outdir}/main.mjs, reader-worker.mjs and frame-worker.mjs`);
