/**
 * Login timing benchmark: is an unknown email distinguishable from a known one by
 * response time? Runs the real hub app (auth routes, Argon2id, database) in this process
 * and posts `/auth/login` through `app.request` for
 *   A. an email with no account (dummy Argon2 verification), and
 *   B. an existing account with a wrong password (real Argon2 verification),
 * interleaved A, B, A, B ... so drift hits both equally. Prints p50/p95 and the ratios.
 *
 *   npx tsx scripts/bench/login-timing.ts [--samples 200]
 *   (DATABASE_URL set: a fresh database on that server; unset: PGlite in a temp folder)
 *
 * The login rate limit (5/min per address) is real: the injected clock moves 60 s
 * between requests so every sample reaches the password check.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { authTestContext, testUser } from '../../hub/src/auth/auth.test-helper.ts';

const { values: args } = parseArgs({ options: { samples: { type: 'string', default: '200' } } });
const SAMPLES = Number(args.samples);

const teardowns: (() => unknown)[] = [];
const handle = { comment: (...m: unknown[]) => console.error('#', ...m), teardown: (fn: () => unknown) => void teardowns.push(fn) };
const dir = await mkdtemp(join(tmpdir(), 'alpr-login-bench-'));
teardowns.push(() => rm(dir, { recursive: true, force: true }));

try {
  const ctx = await authTestContext(handle, { HUB_DATA_DIR: dir });
  const user = await testUser(ctx, 'viewer', { enrolled: false });
  const post = async (email: string): Promise<number> => {
    ctx.clock.advance(60_000);
    const started = performance.now();
    const res = await ctx.app.request('/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'definitely the wrong password' }),
    });
    await res.arrayBuffer();
    const elapsed = performance.now() - started;
    if (res.status !== 401) throw new Error(`expected 401, got ${res.status}`);
    return elapsed;
  };
  // Warm-up: JIT, the dummy hash (computed once per process), connection pool.
  for (let i = 0; i < 10; i++) {
    await post(`warmup${i}@example.test`);
    await post(user.email);
  }
  const unknown: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    unknown.push(await post(`nobody${i}@example.test`));
    wrong.push(await post(user.email));
  }
  const pct = (xs: number[], p: number) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  };
  const row = (name: string, xs: number[]) =>
    console.log(`${name.padEnd(28)} p50 ${pct(xs, 50).toFixed(2).padStart(7)} ms   p95 ${pct(xs, 95).toFixed(2).padStart(7)} ms`);
  console.log(`database: ${ctx.database.kind}, samples: ${SAMPLES} each`);
  row('unknown email', unknown);
  row('known email, wrong password', wrong);
  console.log(`ratio unknown/known: p50 ${(pct(unknown, 50) / pct(wrong, 50)).toFixed(3)}, p95 ${(pct(unknown, 95) / pct(wrong, 95)).toFixed(3)}`);
} finally {
  for (const fn of teardowns.reverse()) await fn();
}
