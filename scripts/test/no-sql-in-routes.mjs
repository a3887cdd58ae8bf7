// Route handlers and the live broker write no SQL (docs/architecture.md "Rules the checks
// keep"): each database operation is a named function in its domain, so a route reads as
// validate, call one verb, answer. Checked by `npm run lint:deps`.
import { readFileSync } from 'node:fs';
import { files } from './source-files.mjs';

const ROOT = 'hub/src';
const ROUTE_FILE = /(^|\/)([a-z-]+-)?routes\.tsx?$|^live\/broker\.ts$/;
// A statement sent from the handler: `x.sql(...)`, `x.sql<Row>(...)`, or a drizzle builder.
const SQL = /\.sql\s*[(<]|\.db\s*\.\s*(select|insert|update|delete)\s*\(/;

const offenders = [];
for (const path of files(ROOT)) {
  const rel = path.slice(ROOT.length + 1);
  if (!ROUTE_FILE.test(rel) || /\.test\.tsx?$/.test(rel)) continue;
  readFileSync(path, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (SQL.test(line)) offenders.push(`${path}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
}
if (offenders.length > 0) {
  console.error(`SQL in a route handler or the live broker (move it into a named function of its domain):\n${offenders.join('\n')}`);
  process.exit(1);
}
console.log('no SQL in route handlers or the live broker');
