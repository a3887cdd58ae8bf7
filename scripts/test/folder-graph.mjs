// The import graph between top-level folders of each package's src (hub/src, appliance/src,
// shared/src), checked by `npm run lint:deps`. dependency-cruiser's own cycle rule works file
// by file, so it cannot see a ring that runs through different files of the same folders:
// 22 of the hub's folders once formed one such ring (docs/architecture.md "Floors").
//
// Rules:
//   - no cycle between two top-level folders (a file at the top level, such as app.ts, is
//     its own entry);
//   - hub/src/platform imports no other folder of hub/src but db (it is the ground floor);
//   - hub/src/db imports no other folder at all (the schema and session beneath it).
// Test files and test helpers are left out: they may reach across to build their fixtures.
//
// Usage: node scripts/test/folder-graph.mjs           check, exit 1 on a violation
//        node scripts/test/folder-graph.mjs --edges   print every folder-level edge
//        node scripts/test/folder-graph.mjs --floors  print each package's folders by floor
//                                                     (1 imports no sibling; n stands on n-1)
import { cruise } from 'dependency-cruiser';

const ROOTS = ['hub/src', 'appliance/src', 'shared/src'];
/** Floors that may import only the folders listed (beside shared and packages). */
const FLOORS = [
  { root: 'hub/src', folder: 'platform', may: ['db'] },
  { root: 'hub/src', folder: 'db', may: [] },
];
const TEST = /\.test(-helper)?\.tsx?$/;

/** `hub/src/alerts/raise.ts` -> { root: 'hub/src', entry: 'alerts' }; app.ts -> 'app.ts'. */
function entryOf(path) {
  for (const root of ROOTS) {
    if (path.startsWith(`${root}/`)) {
      const rest = path.slice(root.length + 1);
      return { root, entry: rest.split('/')[0] };
    }
  }
  return undefined;
}

/** Tarjan's strongly connected components over a Map<node, Set<node>>. */
function components(graph) {
  let index = 0;
  const stack = [];
  const on = new Set();
  const idx = new Map();
  const low = new Map();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      out.push(scc);
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const result = await cruise(ROOTS, {
  doNotFollow: { path: 'node_modules' },
  exclude: { path: '(^|/)node_modules/|\\.d\\.ts$' },
  tsPreCompilationDeps: true,
  tsConfig: { fileName: 'tsconfig.json' },
  preserveSymlinks: false,
  enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js', '.mjs'] },
});

const graphs = new Map(ROOTS.map((r) => [r, new Map()]));
const witnesses = new Map();
for (const module of result.output.modules) {
  if (TEST.test(module.source)) continue;
  const from = entryOf(module.source);
  if (!from) continue;
  const graph = graphs.get(from.root);
  if (!graph.has(from.entry)) graph.set(from.entry, new Set());
  for (const dep of module.dependencies) {
    const to = entryOf(dep.resolved);
    if (!to || to.root !== from.root || to.entry === from.entry || TEST.test(dep.resolved)) continue;
    graph.get(from.entry).add(to.entry);
    const key = `${from.root}:${from.entry}->${to.entry}`;
    if (!witnesses.has(key)) witnesses.set(key, []);
    witnesses.get(key).push(`${module.source} -> ${dep.resolved}`);
  }
}

if (process.argv.includes('--edges')) {
  for (const [root, graph] of graphs)
    for (const [from, tos] of [...graph].sort())
      for (const to of [...tos].sort()) console.log(`${root}: ${from} -> ${to} (${witnesses.get(`${root}:${from}->${to}`).length})`);
  process.exit(0);
}

if (process.argv.includes('--floors')) {
  for (const [root, graph] of graphs) {
    // Longest path down: a folder's floor is one above the highest folder it imports.
    const floor = new Map();
    const floorOf = (v, seen = new Set()) => {
      if (floor.has(v)) return floor.get(v);
      if (seen.has(v)) return 0; // a cycle: the check below reports it
      seen.add(v);
      const f = 1 + Math.max(0, ...[...(graph.get(v) ?? [])].map((w) => floorOf(w, seen)));
      floor.set(v, f);
      return f;
    };
    for (const v of graph.keys()) floorOf(v);
    const top = Math.max(...floor.values());
    console.log(`${root}: ${graph.size} entries on ${top} floors, ${[...graph.values()].reduce((n, s) => n + s.size, 0)} folder-level edges`);
    for (let f = top; f >= 1; f--)
      console.log(
        `  ${String(f).padStart(2)}: ${[...floor]
          .filter(([, x]) => x === f)
          .map(([v]) => v)
          .sort()
          .join(', ')}`,
      );
  }
  process.exit(0);
}

const problems = [];
for (const [root, graph] of graphs) {
  for (const scc of components(graph)) {
    if (scc.length < 2) continue;
    const members = new Set(scc);
    const ties = [];
    for (const from of scc)
      for (const to of graph.get(from))
        if (members.has(to)) ties.push(`    ${from} -> ${to}: ${witnesses.get(`${root}:${from}->${to}`).slice(0, 2).join('; ')}`);
    problems.push(`folder cycle in ${root} through ${scc.length} entries (${scc.sort().join(', ')}):\n${ties.join('\n')}`);
  }
}
for (const floor of FLOORS) {
  for (const to of graphs.get(floor.root).get(floor.folder) ?? []) {
    if (floor.may.includes(to)) continue;
    const allowed = floor.may.length > 0 ? `imports only ${floor.may.join(', ')}` : 'imports no other folder';
    problems.push(
      `${floor.root}/${floor.folder} is a ground floor and ${allowed}, but imports ${to}: ${witnesses.get(`${floor.root}:${floor.folder}->${to}`).join('; ')}`,
    );
  }
}

if (problems.length > 0) {
  console.error(problems.join('\n\n'));
  console.error(`\n${problems.length} folder-level problem(s): move the shared piece down (to platform/ in the hub) or pass it as an argument.`);
  process.exit(1);
}
console.log(
  `folder graph: no cycle between top-level folders of ${ROOTS.join(', ')}; ${FLOORS.map((f) => `${f.root}/${f.folder}`).join(' and ')} stay ground floors`,
);
