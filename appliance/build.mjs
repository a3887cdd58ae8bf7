// Bundles the appliance into one ESM file (appliance/dist/main.mjs) for the device image and
// for measuring what the device runs: plain `node`, no TypeScript loader in memory.
// npm dependencies stay external (native better-sqlite3 among them); the workspace's own
// TypeScript (appliance + @alpr/shared) is compiled in.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = (p) => JSON.parse(readFileSync(new URL(p, import.meta.url), 'utf8'));
const external = [...Object.keys(pkg('./package.json').dependencies), ...Object.keys(pkg('../shared/package.json').dependencies)].filter(
  (name) => !name.startsWith('@alpr/'),
);

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
  outfile: new URL('./dist/frame-worker.mjs', import.meta.url).pathname,
});

await build({
  ...common,
  entryPoints: [new URL('./src/main.ts', import.meta.url).pathname],
  outfile: new URL('./dist/main.mjs', import.meta.url).pathname,
});
// The plate reader's worker thread is its own entry: open-reader.ts starts it from beside main.mjs.
await build({
  ...common,
  entryPoints: [new URL('./src/reader/reader-worker.ts', import.meta.url).pathname],
  outfile: new URL('./dist/reader-worker.mjs', import.meta.url).pathname,
});
console.log('built appliance/dist/main.mjs, reader-worker.mjs and frame-worker.mjs');
