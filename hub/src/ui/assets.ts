import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { STYLESHEET } from '@alpr/shared/ui/stylesheet';

/**
 * The dashboard's client scripts (`client/*.ts`, typed like the rest of the hub) bundled
 * once per process with esbuild on first request, kept in memory, and the stylesheet. No
 * build step for `npm start`; a few kilobytes each.
 */
export const CLIENT_ENTRIES = [
  'sign-in',
  'live',
  'search',
  'detection',
  'collectors',
  'nav',
  'investigations',
  'watchlists',
  'users',
  'audit',
  'holds',
  'notifications',
  'health',
  'audit-review',
  'webhooks',
  'sites',
] as const;
export type ClientEntry = (typeof CLIENT_ENTRIES)[number];

const clientDir = fileURLToPath(new URL('./client/', import.meta.url));

let bundles: Promise<Map<string, string>> | undefined;

async function bundleAll(): Promise<Map<string, string>> {
  const result = await build({
    entryPoints: CLIENT_ENTRIES.map((name) => `${clientDir}${name}.ts`),
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    outdir: '/ui',
    logLevel: 'silent',
  });
  const out = new Map<string, string>();
  for (const file of result.outputFiles) out.set(file.path.replace(/^.*\//, ''), file.text);
  return out;
}

/** The bundled script `name.js`, or undefined when there is no such entry. */
export async function clientScript(name: string): Promise<string | undefined> {
  bundles ??= bundleAll().catch((err: unknown) => {
    bundles = undefined;
    throw err;
  });
  return (await bundles).get(name);
}

/** The shared stylesheet (shared/src/ui/stylesheet.ts), also the appliance pages' look. */
export function stylesheet(): Promise<string> {
  return Promise.resolve(STYLESHEET);
}
