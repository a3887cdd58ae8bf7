// Layering rules for the import graph, checked by `npm run lint:deps` (part of `npm test`).
// docs/architecture.md explains the rooms and why the arrows point the way they do;
// docs/conventions.md has the test-helper naming scheme these rules rely on.
//
// Test files: `*.test.ts` anywhere, and everything under test/ (cross-package tests and
// their helpers). Test helpers: `*.test-helper.ts`, the one scheme (no testing/ folders,
// testing.ts or test-*.ts files: `test-helper-naming` below refuses them).

const TEST_FILE = '\\.test\\.tsx?$';
const TEST_HELPER = '\\.test-helper\\.tsx?$';
const TEST_TREE = '^test/';
// Benchmarks are measurement harnesses that never ship: they may use the tests' sample builders.
const BENCH = '^scripts/bench/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'shared-stands-alone',
      comment: 'shared/ is the code both sides import: it must not reach into the appliance, the hub, scripts or tests.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(appliance|hub|scripts|test)/' },
    },
    {
      name: 'appliance-not-hub',
      comment:
        'The appliance and the hub meet only through shared/src/protocol (the wire contract), never by importing each other. ' +
        'Tests that start both belong in test/integration/.',
      severity: 'error',
      from: { path: '^appliance/src/' },
      to: { path: '^(hub|scripts|test)/', pathNot: '^scripts/simulators/' },
    },
    {
      name: 'hub-not-appliance',
      comment: 'The hub never imports appliance code, scripts or cross-package tests: what both need lives in shared/.',
      severity: 'error',
      from: { path: '^hub/src/' },
      to: { path: '^(appliance|scripts|test)/', pathNot: '^scripts/simulators/' },
    },
    {
      name: 'simulators-only-in-tests',
      comment:
        'scripts/simulators are the stand-ins for cameras and the messaging platform that speak the real protocol on ' +
        'loopback: tests and test helpers in a package may start one, production code never imports one.',
      severity: 'error',
      from: { path: '^(appliance|hub)/src/', pathNot: [TEST_FILE, TEST_HELPER] },
      to: { path: '^scripts/simulators/' },
    },
    {
      name: 'ui-client-not-db',
      comment:
        'Browser code (hub/src/ui/client) is bundled for the page: it must not import the database layer, ' +
        'not even its types (shape the data in a shared view type instead).',
      severity: 'error',
      from: { path: '^hub/src/ui/client/' },
      to: { path: '^hub/src/db/' },
    },
    {
      name: 'test-helper-naming',
      comment:
        'A test helper outside test/ is named *.test-helper.ts: the seven older schemes (testing.ts, testing/ folders, ' +
        'test-support.ts, test-database.ts, ...) hid helpers among production files.',
      severity: 'error',
      from: { path: '^(shared|appliance|hub|scripts)/.*(/testing/|/testing\\.tsx?$|/test-[a-z-]+\\.tsx?$)' },
      to: {},
    },
    {
      name: 'test-helpers-only-in-tests',
      comment:
        'Test helpers (*.test-helper.ts) are imported only by tests, other test helpers and ' +
        'benchmarks (scripts/bench), so production code never ships a test double.',
      severity: 'error',
      from: { pathNot: [TEST_FILE, TEST_HELPER, TEST_TREE, BENCH] },
      to: { path: TEST_HELPER },
    },
    {
      name: 'production-not-tests',
      comment: 'Production code never imports a test file.',
      severity: 'error',
      from: { pathNot: [TEST_FILE, TEST_HELPER, TEST_TREE, BENCH] },
      to: { path: [TEST_FILE, TEST_TREE] },
    },
    {
      name: 'bench-not-test-files',
      comment: 'Benchmarks may use test helpers (and helpers under test/), never a test file itself.',
      severity: 'error',
      from: { path: BENCH },
      to: { path: TEST_FILE },
    },
    {
      name: 'no-domain-cycles',
      comment:
        'An import that closes a cycle across two domain folders (cycles inside one folder are its own business). ' +
        'A cycle between domain folders makes them one domain in two places: move the shared piece down, or pass it ' +
        'as an argument. scripts/test/folder-graph.mjs also refuses rings that no single file-level cycle shows.',
      severity: 'error',
      from: { path: '^(hub|appliance)/src/([^/]+)/' },
      to: { circular: true, pathNot: '^$1/src/$2/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that cannot be resolved (typo, missing package, missing file).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^image/rootfs/|\\.d\\.ts$' },
    // Type-only imports count too (`import type`): the ui-client rule forbids them.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // The workspace packages (@alpr/shared/...) are symlinks in node_modules whose
    // package.json "exports" map to .ts sources; resolve them to their real paths.
    preserveSymlinks: false,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json', '.d.ts'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      archi: {
        collapsePattern: '^(shared|appliance|hub)/src/[^/]+|^(scripts|test)/[^/]+|^image/[^/]+',
      },
      dot: {
        collapsePattern: '^(shared|appliance|hub)/src/[^/]+|^(scripts|test)/[^/]+',
      },
      mermaid: {
        minify: false,
      },
    },
  },
};
