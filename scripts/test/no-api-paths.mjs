// The hub's public API paths are written once, in hub/src/platform/http/paths.ts (docs/architecture.md
// "Rules the checks keep"): the routers, the dashboard's client scripts and the metrics labels
// import them. This refuses a string literal starting with '/api/v1' anywhere else in hub/src's
// production code (tests and test helpers may still spell a URL out). Comments may name a path.
// Checked by `npm run lint:deps`.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = 'hub/src';
const HOME = 'platform/http/paths.ts';
const TEST = /\.test(-helper)?\.tsx?$/;
const LITERAL = /['"`]\/api\/v1/;
const COMMENT = /^\s*(\/\/|\/\*|\*)/;

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

const offenders = [];
for (const path of files(ROOT)) {
  const rel = path.slice(ROOT.length + 1);
  if (!/\.tsx?$/.test(rel) || TEST.test(rel) || rel === HOME) continue;
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const code = line.replace(/\s\/\/\s.*$/, '');
      if (!COMMENT.test(line) && LITERAL.test(code)) offenders.push(`${path}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
}
if (offenders.length > 0) {
  console.error(`An '/api/v1' path outside ${ROOT}/${HOME} (import it from there):\n${offenders.join('\n')}`);
  process.exit(1);
}
console.log(`every /api/v1 path of hub/src is written in ${ROOT}/${HOME}`);
