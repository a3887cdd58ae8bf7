// The hub's public API paths are written once, in hub/src/platform/http/paths.ts, and the
// appliance's in shared/src/protocol/paths.ts (what it calls on the hub) and
// appliance/src/http/local-paths.ts (its own LAN API) (docs/architecture.md "Rules the checks
// keep"): the routers, the dashboard's client scripts, the metrics labels and the tests import
// them. This refuses an '/api/v1' literal anywhere else in hub/src, its tests, test/ and
// scripts/bench:
// a string starting with it, or a URL built as `${base}/api/v1/…`. Comments may name a path.
// A test that must send what no builder makes (a malformed segment, a route of the test's own
// app) keeps its literal and says why with `api-path-literal: <why>` on that line or in a
// comment on the line above. Checked by `npm run lint:deps`.
import { readFileSync } from 'node:fs';
import { files } from './source-files.mjs';

const HOME = 'hub/src/platform/http/paths.ts';
const SOURCE = /\.tsx?$/;
const LITERAL = /['"`}]\/api\/v1|\w\/api\/v1/;
const COMMENT = /^\s*(\/\/|\/\*|\*)/;
const MARKER = 'api-path-literal:';

/** The lines of a file that spell an '/api/v1' path out without saying why. */
function literals(path) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const found = [];
  lines.forEach((line, i) => {
    const code = line.replace(/\s\/\/\s.*$/, '');
    if (COMMENT.test(line) || !LITERAL.test(code)) return;
    const previous = lines[i - 1] ?? '';
    if (line.includes(MARKER) || (COMMENT.test(previous) && previous.includes(MARKER))) return;
    found.push(`${path}:${i + 1}: ${line.trim().slice(0, 120)}`);
  });
  return found;
}

const checked = [...files('hub/src')].filter((p) => SOURCE.test(p) && p !== HOME);
// test/ and the benchmarks, which drive a real hub (or appliance) as the tests do.
const tests = [...files('test'), ...files('scripts/bench')].filter((p) => SOURCE.test(p));
const offenders = [...checked, ...tests].flatMap(literals);
if (offenders.length > 0) {
  console.error(
    `An '/api/v1' path spelled out (import it from ${HOME}, shared/src/protocol/paths.ts or appliance/src/http/local-paths.ts; ` +
      `a test that must send a literal says why with '${MARKER}'):\n${offenders.join('\n')}`,
  );
  process.exit(1);
}
console.log(`every /api/v1 path of hub/src, test/ and scripts/bench comes from the paths modules`);
