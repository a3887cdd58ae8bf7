import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import t from 'tap';

// The check runs as `npm test` runs it: a process in a repository's root. The fixture is a
// small git repository with the three workspaces.
const SCRIPT = resolve(import.meta.dirname, 'undeclared-imports.mjs');

function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'undeclared-'));
  const base: Record<string, string> = {
    'package.json': JSON.stringify({ devDependencies: { tap: '1', '@types/ws': '1', ws: '8' } }),
    'shared/package.json': JSON.stringify({ dependencies: { zod: '4' } }),
    'appliance/package.json': JSON.stringify({ dependencies: { '@alpr/shared': '0.1.0', ws: '8' } }),
    'hub/package.json': JSON.stringify({ dependencies: { '@alpr/shared': '0.1.0', hono: '4' } }),
  };
  for (const [path, text] of Object.entries({ ...base, ...files })) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  execFileSync('git', ['init', '-q'], { cwd: root });
  return root;
}

function check(root: string): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [SCRIPT], { cwd: root, encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

t.test('a hub file importing ws at run time fails while only the appliance declares it (issue 36)', async (t) => {
  const root = fixture({ 'hub/src/live/upgrade.ts': "import { WebSocketServer } from 'ws';\nimport { Hono } from 'hono';\n" });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const run = check(root);
  t.equal(run.status, 1);
  t.match(run.stderr, 'hub/src/live/upgrade.ts: imports ws, not declared in hub/package.json');
  t.notMatch(run.stderr, 'hono');
});

t.test('declared packages, built-ins, relative paths, the own workspace packages pass', async (t) => {
  const root = fixture({
    'hub/src/a.ts': [
      "import { readFile } from 'node:fs/promises';",
      "import { join } from 'path';",
      "import { b } from './b.ts';",
      "import { Hono } from 'hono';",
      "import { x } from '@alpr/shared/protocol/batch';",
      "export * from './c.ts';",
      '// import nothing from "commented-out";',
      '',
    ].join('\n'),
  });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  t.equal(check(root).status, 0);
});

t.test('tests, tooling and type-only imports may use the root devDependencies; shipped code may not', async (t) => {
  const root = fixture({
    'hub/src/x.test.ts': "import t from 'tap';\n",
    'hub/build.mjs': "import t from 'tap';\n",
    'hub/src/types.ts': "import type { WebSocket } from 'ws';\nimport { type RawData } from 'ws';\n",
    'shared/src/y.ts': "const tap = await import('tap');\n",
    'appliance/src/z.ts': "import { z } from 'zod';\n",
  });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const run = check(root);
  t.equal(run.status, 1);
  t.same(
    run.stderr
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.trim())
      .sort(),
    ['appliance/src/z.ts: imports zod, not declared in appliance/package.json', 'shared/src/y.ts: imports tap, not declared in shared/package.json'],
  );
});
