/**
 * Search benchmark (issue 12; docs/performance.md "Search"): generates detections inside
 * PostgreSQL into a fresh database on a production-configured PostgreSQL (100 collectors, 12
 * months, a plate distribution where a few thousand plates recur often and most are seen
 * once or twice), then times the real search and investigation verbs.
 *
 *   DATABASE_URL=... npx tsx scripts/bench/search.ts [--rows 1000000] [--runs 40]
 *
 * `npm run bench:search` starts the production-configured cluster and runs 10 million rows;
 * `--rows 1000000` is the quick run. The rows carry placeholder hash-chain values: this
 * measures search, not the chain. p50/p95 per query kind, with the load average beside each.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { confusionKey } from '@alpr/shared/detection/ocr';
import { openDatabase, type Database } from '../../hub/src/db/client.ts';
import { systemClock } from '../../hub/src/platform/clock.ts';
import { createKeyBuilder } from '../../hub/src/search/key-builder-worker.ts';
import { maintainBlocks } from '../../hub/src/search/posting-blocks.ts';
import { keyCursor } from '../../hub/src/db/unkeyed-reads.ts';
import { createBenchDatabase } from './bench-database.ts';
import { createLog } from '../../hub/src/platform/log.ts';
import { COUNT_CAP, searchDetections } from '../../hub/src/search/search.ts';
import { postingsStatement } from '../../hub/src/search/postings-page.ts';
import { postingsWhere } from '../../hub/src/search/trigram-postings.ts';
import { plateMode, type SearchQuery } from '../../hub/src/search/params.ts';
import { convoy, convoyQuery, plateHistory } from '../../hub/src/search/investigations.ts';
import { ALL_SITES } from '../../hub/src/sites/scope.ts';
import { buildSearch } from '../../hub/src/search/sql.ts';
import { deletionNeighbourhood } from '@alpr/shared/detection/one-edit';

/** The plate read with its 5th character wrong, outside any confusion group (K for X, X otherwise). */
const outOfGroup = (plate: string): string => plate.slice(0, 4) + (plate[4] === 'X' ? 'K' : 'X') + plate.slice(5);

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '10000000' },
    runs: { type: 'string', default: '40' },
    keep: { type: 'boolean', default: false },
    // Search a database an earlier `--keep` run left (its name is printed), without loading.
    database: { type: 'string' },
    // Only the search lines whose label matches this regular expression, and no EXPLAIN (an A/B
    // of one kind of search over a kept table: `--database NAME --only contains`).
    only: { type: 'string' },
  },
});
const ROWS = Number(args.rows);
const RUNS = Number(args.runs);
const COLLECTORS = 100;
const YEAR_MS = 365 * 86_400_000;
const now = Date.now();
const load = (): string => `load ${loadavg()[0]?.toFixed(2)}`;

function percentiles(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const p = (q: number) => (s[Math.min(s.length - 1, Math.ceil((q / 100) * s.length) - 1)] ?? NaN).toFixed(1).padStart(7);
  return `p50 ${p(50)} ms  p95 ${p(95)} ms`;
}

/**
 * Inserts n generated detections numbered from done + 1 (INSERT ... SELECT over generate_series,
 * inside PostgreSQL): half the sightings are of 5,000 frequent plates (skewed: a few very
 * often), the rest random plates seen mostly once or twice. UK-style AB12CDE plates, capture
 * times spread over the last year.
 */
async function detectionInserter(sql: postgres.Sql): Promise<(done: number, n: number) => Promise<unknown>> {
  await sql.unsafe(`CREATE TEMP TABLE bench_collectors AS SELECT row_number() OVER () AS n, id FROM collectors`);
  const letter = `substr('ABCDEFGHJKLMNPRSTUVWXYZ', 1 + floor(random() * 23)::int, 1)`;
  const digit = `substr('0123456789', 1 + floor(random() * 10)::int, 1)`;
  const randomPlate = `${letter} || ${letter} || ${digit} || ${digit} || ${letter} || ${letter} || ${letter}`;
  await sql.unsafe(`CREATE TEMP TABLE bench_frequent AS SELECT i, ${randomPlate} AS p FROM generate_series(1, 5000) AS i`);
  await sql.unsafe(`CREATE INDEX ON bench_frequent (i)`);
  return (done: number, n: number) =>
    sql.unsafe(`
      INSERT INTO detections (collector_id, camera_id, detection_id, plate_number, plate_normalized, confidence, captured_at, direction, chain_seq, prev_hash, record_hash)
      SELECT c.id, 'gate-1', md5(g::text || random()::text), v.p,
             translate(v.p, 'OQDILS', '000115'),
             round((0.5 + random() / 2)::numeric, 3), now() - random() * interval '365 days',
             (ARRAY['entering', 'exiting', 'unknown'])[1 + floor(random() * 2.2)::int], g, repeat('0', 64), repeat('0', 64)
      FROM generate_series(${done + 1}, ${done + n}) AS g
      -- \`g\` in the subquery makes it correlated: without it PostgreSQL evaluates it once per
      -- statement and every row of a 200,000-row step gets the same collector and plate.
      CROSS JOIN LATERAL (SELECT g AS row_no, 1 + floor(random() * ${COLLECTORS})::int AS cn, random() AS r, 1 + floor(random() ^ 2 * 5000)::int AS fi) AS x
      JOIN bench_collectors c ON c.n = x.cn
      LEFT JOIN bench_frequent f ON f.i = x.fi AND x.r < 0.5
      CROSS JOIN LATERAL (SELECT COALESCE(f.p, ${randomPlate}) AS p, x.row_no) AS v`);
}

/**
 * The load: 100 collectors, ROWS detections over 12 months generated inside PostgreSQL, every
 * index in place, VACUUM ANALYZE as autovacuum would, then the one-edit keys' ingest cost.
 */
async function generate(sql: postgres.Sql, db: Database): Promise<void> {
  await sql`SELECT ensure_detection_partitions(${new Date(now - YEAR_MS - 31 * 86_400_000)}::timestamptz, 15)`;
  const collectors = Array.from({ length: COLLECTORS }, () => randomUUID());
  for (const [i, id] of collectors.entries()) {
    await sql`INSERT INTO collectors (id, site_name, status, gps_latitude, gps_longitude) VALUES (${id}, ${`Site ${i}`}, 'active', ${String(51 + Math.random())}, ${String(-1 + Math.random())})`;
  }
  const started = Date.now();
  // 200,000 rows a statement.
  const STEP = 200_000;
  const insertStep = await detectionInserter(sql);
  for (let done = 0; done < ROWS; done += STEP) {
    const n = Math.min(STEP, ROWS - done);
    await insertStep(done, n);
    console.log(`  ${(done + n).toLocaleString('en')} rows after ${((Date.now() - started) / 1000).toFixed(0)} s  ${load()}`);
  }
  // The search keys are built after commit (migration 0038, hub/src/search/key-builder.ts):
  // the builder keys the whole load in passes, as it would a backlog, and the sealer moves
  // the postings into blocks every SEAL_READS keyed reads and merges them (0046,
  // hub/src/search/posting-blocks.ts), as the hub's sealer beside it would; each one's rate
  // is printed.
  const builder = createKeyBuilder({ db, clock: systemClock, log: createLog('silent') });
  let keyed = 0;
  let keyMs = 0;
  let sealMs = 0;
  for (;;) {
    const k0 = performance.now();
    const pass = await builder.runOnce();
    keyMs += performance.now() - k0;
    keyed += pass.keyed;
    const s0 = performance.now();
    await maintainBlocks(db, new Date());
    sealMs += performance.now() - s0;
    if (pass.caughtUp) break;
    if (!pass.settled) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  console.log(
    `search keys built after the load: ${keyed.toLocaleString('en')} reads in ${(keyMs / 1000).toFixed(0)} s, ${(keyed / (keyMs / 1000)).toFixed(0)} reads/s; ` +
      `sealing and merging ${(sealMs / 1000).toFixed(0)} s, ${(keyed / (sealMs / 1000)).toFixed(0)} reads/s  ${load()}`,
  );
  // VACUUM as autovacuum would after a bulk of inserts (PostgreSQL 13+ vacuums insert-only
  // tables): it sets the visibility map that index-only scans rely on in steady state.
  await sql`VACUUM (ANALYZE) detections`;
  await sql`VACUUM (ANALYZE) plates`;
  await sql`VACUUM (ANALYZE) plate_edit_keys`;
  await sql`VACUUM (ANALYZE) detection_trigrams`;
  await sql`VACUUM (ANALYZE) trigram_blocks`;
  const [shape] = await sql<
    { plates: string; collectors: string }[]
  >`SELECT count(DISTINCT plate_normalized)::text AS plates, count(DISTINCT collector_id)::text AS collectors FROM detections`;
  console.log(`distinct plates ${Number(shape?.plates).toLocaleString('en')}, collectors ${shape?.collectors}`);
  if (Number(shape?.plates) < ROWS / 10) throw new Error('the generator made too few distinct plates: the figures would mean nothing');
  const [sizes] = await sql<{ keys: string; postings: string; fresh: string; sealed: string; blocks: string; levels: string }[]>`
    SELECT pg_size_pretty(pg_total_relation_size('plate_edit_keys')) AS keys,
           pg_size_pretty(pg_total_relation_size('detection_trigrams') + pg_total_relation_size('trigram_blocks')) AS postings,
           pg_size_pretty(pg_total_relation_size('detection_trigrams')) AS fresh, pg_size_pretty(pg_total_relation_size('trigram_blocks')) AS sealed,
           (SELECT count(*) FROM trigram_blocks)::text AS blocks,
           (SELECT string_agg(format('level %s: %s blocks of %s postings on average', level, n, avg), ', ' ORDER BY level)
              FROM (SELECT level, count(*) AS n, round(avg(n)) AS avg FROM trigram_blocks GROUP BY level) l) AS levels`;
  console.log(
    `loaded ${ROWS.toLocaleString('en')} rows in ${((Date.now() - started) / 1000).toFixed(0)} s (every index in place, keys built and sealed, then VACUUM ANALYZE); ` +
      `one-edit keys ${sizes?.keys}, trigram postings ${sizes?.postings} (fresh ${sizes?.fresh}, sealed ${sizes?.sealed} in ${Number(sizes?.blocks).toLocaleString('en')} blocks: ${sizes?.levels})  ${load()}`,
  );
}

async function main(): Promise<void> {
  const bench = await createBenchDatabase(
    process.env['DATABASE_URL'],
    'alpr_search',
    'npm run bench:search starts a production-configured server',
    args.database,
  );
  console.log(`database ${bench.name}${args.database ? ' (kept by an earlier run: no load)' : ''}`);
  const db = await openDatabase({ url: bench.url, log: createLog('silent'), maxConnections: 4 });
  const sql = postgres(bench.url, { max: 1, onnotice: () => undefined });
  try {
    const rows = args.database ? Number((await sql<{ n: string }[]>`SELECT count(*)::text AS n FROM detections`)[0]?.n) : ROWS;
    console.log(
      `PostgreSQL: ${await bench.settings(['fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers'])}; ${rows.toLocaleString('en')} rows, ${COLLECTORS} collectors, 12 months`,
    );
    if (!args.database) await generate(sql, db);
    // The one-edit EXPLAIN below reads the keys' statistics.
    await sql`VACUUM (ANALYZE) plate_edit_keys`;

    // Targets sampled across the whole table, each plate once: every line below searches plates
    // no earlier line searched, so its first pass is fresh (see `twoPasses`).
    // Repeatable, so two runs over one kept table (a before and an after) search the same targets.
    const samples = await sql<{ plate_normalized: string; collector_id: string }[]>`
      SELECT plate_normalized, collector_id FROM (
        SELECT DISTINCT ON (plate_normalized) plate_normalized, collector_id FROM detections TABLESAMPLE SYSTEM (1) REPEATABLE (38)
        ORDER BY plate_normalized, collector_id
      ) AS s ORDER BY md5(plate_normalized) LIMIT ${RUNS * 30 + 1}`;
    let nextTarget = 1;
    /** The next RUNS targets nobody searched yet (index 0 is the warm-up target, shared). */
    const freshTargets = (): number => {
      const first = nextTarget;
      nextTarget += RUNS;
      return first;
    };
    const target = (i: number) => samples[i % samples.length] as { plate_normalized: string; collector_id: string };
    const base = (plate: SearchQuery['plate']): SearchQuery => ({
      plate,
      collectorIds: [],
      page: 1,
      perPage: 50,
      sort: 'captured_at',
      order: 'desc',
      purpose: { purpose: 'criminal_investigation', case_number: 'BENCH-1', reason: 'bench' },
    });
    const kinds: Array<[string, (i: number) => SearchQuery['plate']]> = [
      ['exact', (i) => ({ kind: 'exact', value: target(i).plate_normalized })],
      ['prefix AB1*', (i) => plateMode(`${target(i).plate_normalized.slice(0, 3)}*`, false) as SearchQuery['plate']],
      ['suffix *XYZ', (i) => plateMode(`*${target(i).plate_normalized.slice(-3)}`, false) as SearchQuery['plate']],
      ['contains *12X*', (i) => plateMode(`*${target(i).plate_normalized.slice(2, 5)}*`, false) as SearchQuery['plate']],
      ['fuzzy (one confusion)', (i) => ({ kind: 'fuzzy', key: confusionKey(target(i).plate_normalized.replace(/[0-9]/, (d) => (d === '8' ? 'B' : d))) })],
      ['one edit (out-of-group substitution)', (i) => plateMode(outOfGroup(target(i).plate_normalized), false, 'one_edit') as SearchQuery['plate']],
    ];
    // Fresh and warm: the goals must hold on a table just loaded as well as on a warm one. Fresh
    // is each line's first pass over targets no earlier line touched (their pages come from the
    // OS cache or the disk, not PostgreSQL's buffers, as on a hub whose table was just loaded or
    // whose investigator asks about a plate nobody looked at); warm is the same searches again.
    const twoPasses = async (fn: (i: number) => Promise<unknown>): Promise<string> => {
      await fn(0); // connections, prepared statements and plans, on the shared warm-up target
      const first = freshTargets();
      const pass = async (): Promise<number[]> => {
        const out: number[] = [];
        for (let i = first; i < first + RUNS; i++) {
          const t0 = performance.now();
          await fn(i);
          out.push(performance.now() - t0);
        }
        return out;
      };
      const fresh = await pass();
      const warm = await pass();
      return `fresh ${percentiles(fresh)}   warm ${percentiles(warm)}  ${load()}`;
    };
    console.log(`${'query'.padEnd(44)} ${RUNS} searches a pass; each = the capped count + the first page of 50`);
    const only = args.only === undefined ? undefined : new RegExp(args.only);
    for (const [label, plateOf] of kinds) {
      for (const variant of ['', ' + 7 days', ' + collector', ' + 7 days + collector']) {
        if (only && !only.test(label + variant)) {
          freshTargets(); // a skipped line still takes its targets: the others keep a full run's
          continue;
        }
        const line = await twoPasses((i) =>
          searchDetections(db, {
            ...base(plateOf(i)),
            ...(variant.includes('7 days') ? { startDate: new Date(now - 7 * 86_400_000), endDate: new Date(now) } : {}),
            ...(variant.includes('collector') ? { collectorIds: [target(i).collector_id] } : {}),
          }),
        );
        console.log(`${(label + variant).padEnd(44)} ${line}`);
      }
    }
    if (only) return;
    const range = { start: new Date(now - YEAR_MS), end: new Date(now) };
    console.log(`${'plate history (a year)'.padEnd(44)} ${await twoPasses((i) => plateHistory(db, target(i).plate_normalized, range, ALL_SITES))}`);
    const busy = await sql<{ p: string }[]>`SELECT plate_normalized AS p FROM detections GROUP BY 1 ORDER BY count(*) DESC LIMIT ${RUNS + 1}`;
    console.log(
      `${'convoy (the most seen plates, a year)'.padEnd(44)} ${await twoPasses((i) => convoy(db, busy[i % busy.length]?.p ?? '', range, 5, 3, ALL_SITES))}`,
    );
    // The plans behind the figures: the real statements, with the search's own settings.
    const explain = async (label: string, text: string, params: unknown[], settings: string[]): Promise<void> => {
      const plan = await sql.begin(async (tx) => {
        // As the hub's own sessions run (hub/src/db/open-postgres.ts).
        await tx.unsafe('SET LOCAL jit = off');
        for (const setting of settings) await tx.unsafe(setting);
        return tx.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${text}`, params as never[]);
      });
      console.log(
        `EXPLAIN ${label}:\n${plan
          .map((r) => `  ${String((r as Record<string, unknown>)['QUERY PLAN'])}`)
          .slice(0, 22)
          .join('\n')}`,
      );
    };
    const page = (q: SearchQuery): [string, unknown[]] => {
      const built = buildSearch(q);
      return [`SELECT d.id FROM detections d WHERE ${built.where} ORDER BY ${built.orderBy} LIMIT 50`, built.params];
    };
    // The most seen plate: the case a plan that reads every sighting gets wrong.
    const top = busy[0]?.p ?? target(0).plate_normalized;
    const topAt = await sql<{ c: string }[]>`SELECT collector_id::text AS c FROM detections WHERE plate_normalized = ${top} LIMIT 1`;
    await explain('exact (the most seen plate)', ...page(base({ kind: 'exact', value: top })), []);
    await explain(
      'exact + collector (the most seen plate at one collector)',
      ...page({ ...base({ kind: 'exact', value: top }), collectorIds: [topAt[0]?.c ?? ''] }),
      [],
    );
    // A pattern inside the most seen plate, over all time and at one collector: more matches
    // than the count reads, from the trigram postings (postings-page.ts): the capped count and
    // the page's 50 rows in one statement.
    for (const [label, collectorIds] of [
      ['contains, a pattern of the most seen plate: count and page from the trigram postings', []],
      ['contains + collector, the same pattern at one collector', [topAt[0]?.c ?? '']],
    ] as const) {
      const q = { ...base({ kind: 'wildcard', pattern: `%${top.slice(2, 5)}%`, shape: 'contains' }), collectorIds: [...collectorIds] } satisfies SearchQuery;
      const built = buildSearch(q);
      const postings = postingsWhere(q, built.params.length);
      if (!postings) throw new Error('a three-character contains pattern has one trigram');
      const statement = postingsStatement({ built, postings, countCap: COUNT_CAP, offset: 0, perPage: 50 }, await keyCursor(db));
      await explain(label, statement.text, statement.params, ['SET LOCAL enable_seqscan = off']);
    }
    // A prefix of the most seen plate: the plate index's range (prefix-page.ts). The edge of the
    // newest month's page from index entries alone, then only the rows at or after it.
    const prefix = buildSearch(base({ kind: 'wildcard', pattern: `${top.slice(0, 3)}%`, shape: 'prefix' }), [], { codePointOrder: true });
    const month = new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1)).toISOString();
    await explain(
      'prefix, a prefix of the most seen plate: the page from the newest month (the range of the plate index)',
      `WITH edge AS (SELECT min(e.captured_at) AS at FROM (SELECT d.captured_at FROM detections d WHERE ${prefix.where} AND d.captured_at >= $${prefix.params.length + 1}::timestamptz ORDER BY d.captured_at DESC LIMIT 50) e)
       SELECT d.id FROM detections d WHERE ${prefix.where} AND d.captured_at >= $${prefix.params.length + 1}::timestamptz AND d.captured_at >= (SELECT edge.at FROM edge) ORDER BY d.captured_at DESC, d.id DESC LIMIT 50`,
      [...prefix.params, month],
      ['SET LOCAL enable_seqscan = off'],
    );
    const fuzzy = buildSearch(base({ kind: 'fuzzy', key: confusionKey(target(0).plate_normalized) }));
    await explain(
      'fuzzy (similar plates, then each one newest first)',
      `SELECT fp.plate_normalized, d.id FROM (${fuzzy.fuzzy?.plates}) AS fp CROSS JOIN LATERAL (SELECT d.id, d.captured_at FROM detections d WHERE d.plate_normalized = fp.plate_normalized ORDER BY d.captured_at DESC LIMIT 50) d ORDER BY fp.sim DESC, d.captured_at DESC LIMIT 50`,
      fuzzy.params,
      ['SET LOCAL pg_trgm.similarity_threshold = 0.6', 'SET LOCAL enable_seqscan = off'],
    );
    const misread = plateMode(outOfGroup(target(0).plate_normalized), false, 'one_edit');
    if ('kind' in misread && misread.kind === 'one_edit')
      await explain(
        'one edit: the candidate plates (deletion keys)',
        // As text, cast in SQL: postgres.js would send a string parameter typed json as a JSON scalar.
        `SELECT DISTINCT k.plate_normalized FROM plate_edit_keys k WHERE k.edit_key = ANY (ARRAY(SELECT json_array_elements_text($1::text::json)))`,
        [JSON.stringify(deletionNeighbourhood(misread.key))],
        ['SET LOCAL enable_seqscan = off'],
      );
    const c = convoyQuery(busy[0]?.p ?? '', range, 5, 3, ALL_SITES);
    await explain('convoy (the most seen plate)', c.text, c.params, []);
  } finally {
    await sql.end({ timeout: 5 });
    await db.close();
    await bench.drop(args.keep);
  }
}

await main();
