// Bundles the hub into ESM files for an installed server (docs/operations.md "Install"):
// hub/dist/main.mjs (the service) and hub/dist/cli.mjs (the admin commands), run by plain
// `node` with no TypeScript loader. npm dependencies stay external (argon2 is native, PGlite
// ships wasm); the workspace's own TypeScript (hub + @alpr/shared) is compiled in.
// Two things the sources read next to themselves at run time:
// - the SQL migrations (db/migrate.ts reads ./migrations/): copied beside the bundles;
// - the dashboard's client scripts, which ui/assets.ts bundles from its TypeScript on first
//   request: here they are bundled once, by that same module, and the served bundle gets a
//   stand-in for ui/assets.ts holding the results (no sources or esbuild needed on a server).
import { build } from 'esbuild';
import { cpSync, readFileSync, rmSync } from 'node:fs';

const here = (p) => new URL(p, import.meta.url).pathname;
const pkg = (p) => JSON.parse(readFileSync(here(p), 'utf8'));
const external = [...Object.keys(pkg('./package.json').dependencies), ...Object.keys(pkg('../shared/package.json').dependencies)].filter(
  (name) => !name.startsWith('@alpr/'),
);
const assetsModule = here('./src/ui/assets.ts');

/** Every client script exactly as ui/assets.ts makes it in development. */
async function prebuiltClientScripts() {
  // Beside assets.ts, so its `./client/` resolves to the real sources; removed at once.
  const tmp = here(`./src/ui/.assets-prebuild-${process.pid}.mjs`);
  try {
    await build({ entryPoints: [assetsModule], outfile: tmp, bundle: true, platform: 'node', format: 'esm', external, logLevel: 'warning' });
    const assets = await import(tmp);
    const scripts = {};
    for (const name of assets.CLIENT_ENTRIES) scripts[`${name}.js`] = await assets.clientScript(`${name}.js`);
    return { entries: assets.CLIENT_ENTRIES, scripts };
  } finally {
    rmSync(tmp, { force: true });
  }
}

const client = await prebuiltClientScripts();
const prebuiltAssets = {
  name: 'prebuilt-client-scripts',
  setup(b) {
    b.onLoad({ filter: /[\\/]ui[\\/]assets\.ts$/ }, (args) =>
      args.path !== assetsModule
        ? undefined
        : {
            loader: 'js',
            resolveDir: here('./src/ui'),
            contents: `import { STYLESHEET } from '@alpr/shared/ui/stylesheet';
export const CLIENT_ENTRIES = ${JSON.stringify(client.entries)};
const scripts = new Map(Object.entries(${JSON.stringify(client.scripts)}));
export async function clientScript(name) { return scripts.get(name); }
export function stylesheet() { return Promise.resolve(STYLESHEET); }
`,
          },
    );
  },
};

rmSync(here('./dist'), { recursive: true, force: true });
for (const [entry, out] of [
  ['./src/main.ts', './dist/main.mjs'],
  ['./src/cli/main.ts', './dist/cli.mjs'],
]) {
  await build({
    entryPoints: [here(entry)],
    outfile: here(out),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external,
    plugins: [prebuiltAssets],
    sourcemap: true,
    logLevel: 'warning',
  });
}
cpSync(here('./src/db/migrations'), here('./dist/migrations'), { recursive: true });
console.log(`built hub/dist/main.mjs, hub/dist/cli.mjs, dist/migrations/ (${client.entries.length} client scripts inside)`);
