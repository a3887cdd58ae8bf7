/**
 * The client scripts import the server's wire shapes as types (`import type`), which esbuild
 * drops. This checks that the bundles really pull no server code: every module esbuild reads
 * for them is a client script or one of the few pure modules the pages share with the server.
 */
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import t from 'tap';
import { CLIENT_ENTRIES } from '../assets.ts';

const clientDir = fileURLToPath(new URL('./', import.meta.url));
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
/**
 * Pure functions the live and notifications pages run as the server does (no I/O, no imports);
 * shared/ is for both sides. plate-diff.ts (the Verify view's marked characters) sits with the alerts it explains.
 */
const SHARED_AT_RUN_TIME = [
  'hub/src/messaging/effective-preference.ts',
  'hub/src/messaging/delivery/quiet-hours.ts',
  'hub/src/alerts/plate-diff.ts',
  // The audit page's cap on the rows a link may name, checked on both sides.
  'hub/src/audit/ids-limit.ts',
  // The hub's public API paths: the routers register them, the pages call them.
  'hub/src/platform/http/paths.ts',
];
const allowed = (path: string): boolean => path.startsWith('hub/src/ui/client/') || path.startsWith('shared/src/') || SHARED_AT_RUN_TIME.includes(path);

t.test('the client bundles hold client code and the shared pure modules only', async (t) => {
  const result = await build({
    entryPoints: CLIENT_ENTRIES.map((name) => `${clientDir}${name}.ts`),
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    outdir: '/ui',
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile.inputs).map((path) => relative(repo, fileURLToPath(new URL(path, `file://${process.cwd()}/`))));
  t.ok(inputs.length >= CLIENT_ENTRIES.length, `${inputs.length} modules bundled`);
  const foreign = inputs.filter((path) => !allowed(path));
  t.same(foreign, [], 'no server module in a bundle');
});
