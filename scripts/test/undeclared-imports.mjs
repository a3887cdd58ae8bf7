#!/usr/bin/env node
// Fails when a file in shared/, appliance/ or hub/ imports a package its workspace's
// package.json does not declare (issue 36: the hub imported `ws` at run time and worked only
// because npm hoisted the appliance's copy; an install of the hub alone broke).
// Rules (docs/conventions.md "Tooling in `npm test`"):
//   - relative imports, `node:` and bare Node built-ins are always fine;
//   - a run-time import needs the package in that workspace's dependencies or
//     devDependencies (the workspace's own @alpr/* packages included, as declared);
//   - test files (*.test.ts, *.test-helper.ts, files under a testing/ folder), tooling
//     outside a workspace's src/ (appliance/build.mjs) and type-only imports (`import type`,
//     erased before run time) may also use the root package.json's devDependencies: they run
//     from the repository root, where those are installed, and nothing ships them.
// Part of `npm test`; run alone with `node scripts/test/undeclared-imports.mjs`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';

const WORKSPACES = ['shared', 'appliance', 'hub'];
const CODE = /\.(ts|tsx|mts|cts|mjs|cjs|js)$/;
const TEST_FILE = /(\.test\.tsx?|\.test-helper\.tsx?)$|\/testing\//;
const BUILTINS = new Set(builtinModules);

/** Every specifier a file imports, with whether the import is type-only. */
export function importsOf(text) {
  const found = [];
  // Comments could hold `import x from 'y'` as an example: drop them first (a string holding
  // `//`, a URL, only loses the rest of its line, which holds no import on its own).
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const patterns = [
    // import x from 'y'; import { a } from 'y'; import type { A } from 'y'; export * from 'y'
    /(?:^|[;\s])(import|export)\s+(type\s+)?(?:[\w*\s{},$]*?\s+from\s+)?['"]([^'"]+)['"]/g,
    // import('y'), require('y')
    /(?:\bimport|\brequire)\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const m of code.matchAll(patterns[0])) {
    const typeOnly = Boolean(m[2]) || /^import\s*\{\s*(type\s+[\w$]+\s*,?\s*)+\}/.test(m[0].replace(/^[;\s]+/, ''));
    found.push({ specifier: m[3], typeOnly });
  }
  for (const m of code.matchAll(patterns[1])) found.push({ specifier: m[1], typeOnly: false });
  return found;
}

/** The package a specifier names, or undefined for relative paths and Node built-ins. */
export function packageOf(specifier) {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (BUILTINS.has(name)) return undefined;
  return name;
}

function declared(pkg) {
  return new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);
}

/** Problems in the given files: `file: imports pkg, not declared in workspace/package.json`. */
export function undeclaredImports(files, read, manifests, rootDev) {
  const problems = [];
  for (const file of files) {
    const workspace = WORKSPACES.find((w) => file.startsWith(`${w}/`));
    if (!workspace || !CODE.test(file)) continue;
    const own = manifests[workspace];
    const rootToolsAllowed = TEST_FILE.test(file) || !file.startsWith(`${workspace}/src/`);
    for (const { specifier, typeOnly } of importsOf(read(file))) {
      const name = packageOf(specifier);
      if (name === undefined || own.has(name)) continue;
      if ((rootToolsAllowed || typeOnly) && rootDev.has(name)) continue;
      problems.push(`${file}: imports ${name}, not declared in ${workspace}/package.json`);
    }
  }
  return problems;
}

function main() {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...WORKSPACES], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && CODE.test(f) && !f.includes('/dist/') && !f.includes('node_modules/'));
  const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
  const manifests = Object.fromEntries(WORKSPACES.map((w) => [w, declared(readJson(`${w}/package.json`))]));
  const root = readJson('package.json');
  const rootDev = new Set(Object.keys(root.devDependencies ?? {}));
  const problems = undeclaredImports(
    files,
    (f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch {
        return ''; // listed by git but deleted in the work tree
      }
    },
    manifests,
    rootDev,
  );
  if (problems.length > 0) {
    console.error('== imports of undeclared packages (add them to that package.json):');
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
