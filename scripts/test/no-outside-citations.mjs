#!/usr/bin/env node
// Fails when a comment (or a Markdown page) cites a document kept outside this repository:
// the product specification, the vendor format notes, or the original conventions and
// architecture notes. Comments state the rule themselves or point at docs/*.md
// (docs/conventions.md "Words"). Public standards (RFC 7616 §3.3, ONVIF Core §7.3) and
// issue numbers are fine. Part of `npm test`; run alone with
// `node scripts/test/no-outside-citations.mjs`.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const SELF = 'scripts/test/no-outside-citations.mjs';
const CODE = /\.(ts|tsx|mjs|cjs|js)$/;
const HASH = /\.sh$/;
const PROSE = /\.md$/;

const OUTSIDE = [
  /spec\.md/,
  /vendor-formats/,
  /\bCONVENTIONS\b/,
  /\bARCHITECTURE\b/,
  /\b[Ss]pec\b/, // "the spec", "spec's", `spec "Section"`: the specification kept elsewhere
  /(?<!(RFC \d+|Core|[Ii]ssue \d+|RFC \d+ §[\d.]+(–[\d.]+)?,)\s)§\s?\d/, // bare section numbers of those documents
];

/** The comment text on each line of a source file ('' where the line has none). */
function commentsOf(text, hashComments) {
  const out = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    if (hashComments) {
      const at = line.search(/(^|\s)#/);
      out.push(at < 0 || line.startsWith('#!') ? '' : line.slice(at));
      continue;
    }
    // String literals can hold `/*` or `//` (paths, URLs): blank them outside block comments.
    let rest = inBlock ? line : line.replace(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''");
    let found = '';
    for (;;) {
      if (inBlock) {
        const end = rest.indexOf('*/');
        if (end < 0) {
          found += rest;
          break;
        }
        found += rest.slice(0, end);
        rest = rest.slice(end + 2);
        inBlock = false;
        continue;
      }
      const block = rest.indexOf('/*');
      const lineComment = rest.search(/(^|[^:'"`])\/\//);
      if (lineComment >= 0 && (block < 0 || lineComment < block)) {
        found += rest.slice(lineComment);
        break;
      }
      if (block < 0) break;
      inBlock = true;
      rest = rest.slice(block + 2);
    }
    out.push(found);
  }
  return out;
}

const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && f !== SELF && !f.includes('node_modules/') && (CODE.test(f) || HASH.test(f) || PROSE.test(f)));

const hits = [];
for (const file of files) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue; // deleted in the working tree
  }
  const lines = PROSE.test(file) ? text.split('\n') : commentsOf(text, HASH.test(file));
  lines.forEach((comment, i) => {
    if (comment && OUTSIDE.some((re) => re.test(comment))) hits.push(`${file}:${i + 1}: ${comment.trim().slice(0, 160)}`);
  });
}

if (hits.length > 0) {
  console.error(hits.join('\n'));
  const count = new Set(hits.map((h) => h.slice(0, h.indexOf(':')))).size;
  console.error(`\n${hits.length} comment line(s) in ${count} file(s) cite documents outside the repository.`);
  console.error('Say the rule in the comment, or point at the page under docs/ that says it (docs/conventions.md "Words").');
  process.exit(1);
}
