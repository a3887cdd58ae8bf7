import type { Hono } from 'hono';
import { batteryFor, QUERY_FIELDS, QUERY_PROBE, seededRandom, type Credentials, type HostileRequest, type RouteEntry } from './battery.ts';

/**
 * Sends the battery to every route of an app over real HTTP and judges each answer:
 * never a 5xx, never slower than the stated bound, a 4xx always in the project's error
 * envelope (`{error:{code,message}}`, or `{detail}` where a route contract fixes it, or the setup
 * page's HTML), a refused request changes nothing stored, and the health check answers.
 */

/** The answer bound per request: far above any honest answer, far below "hung". */
export const ANSWER_BOUND_MS = 10_000;

/** The routes the app really mounts (Hono's own table; middleware entries are `ALL`). */
export function routesOf(app: Hono): RouteEntry[] {
  const seen = new Set<string>();
  const out: RouteEntry[] = [];
  for (const r of app.routes) {
    if (r.method === 'ALL') continue;
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path: r.path });
  }
  return out;
}

export interface SweepTarget {
  base: string;
  routes: RouteEntry[];
  credentials: Credentials;
  /** A value that changes whenever anything is stored (row counts of every content table). */
  fingerprint(): Promise<string>;
  healthPath: string;
  /**
   * Before each request: move the injected clock so rate limits do not hide deeper bugs.
   * Answers true when it stored something itself (a fresh session).
   */
  beforeEach?(request: HostileRequest, index: number): Promise<boolean>;
}

export interface SweepResult {
  attempts: number;
  durationMs: number;
  failures: string[];
  statuses: Record<string, number>;
}

function envelopeProblem(status: number, contentType: string, text: string): string | undefined {
  if (status < 400) return undefined;
  if (contentType.includes('text/html')) return undefined;
  if (!contentType.includes('application/json')) return `no JSON error body (content-type ${contentType || 'none'}): ${text.slice(0, 80)}`;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown }; detail?: unknown };
    if (typeof body.error?.code === 'string' && typeof body.error.message === 'string') return undefined;
    if (typeof body.detail === 'string') return undefined;
    return `JSON without the error envelope: ${text.slice(0, 80)}`;
  } catch {
    return `unparseable JSON error body: ${text.slice(0, 80)}`;
  }
}

export async function sweep(target: SweepTarget, seed: number): Promise<SweepResult> {
  const random = seededRandom(seed);
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  let attempts = 0;
  let before = await target.fingerprint();
  for (const route of target.routes) {
    for (const request of batteryFor(route, target.credentials, random)) {
      // What the hook wrote (a fresh session) is not the request's doing.
      if (await target.beforeEach?.(request, attempts)) before = await target.fingerprint();
      attempts += 1;
      const label = `${route.method} ${route.path} [${request.name}]`;
      let res: Response;
      try {
        res = await fetch(`${target.base}${request.path}`, {
          method: request.method,
          headers: request.headers,
          redirect: 'manual',
          signal: AbortSignal.timeout(ANSWER_BOUND_MS),
          ...(request.body !== undefined ? { body: request.body } : {}),
        });
      } catch (error) {
        // A connection the server closed on purpose (a body over the cap) is an answer too;
        // a timeout is a hang.
        const name = (error as Error).name;
        if (name === 'TimeoutError') failures.push(`${label}: no answer within ${ANSWER_BOUND_MS} ms`);
        else statuses['closed'] = (statuses['closed'] ?? 0) + 1;
        continue;
      }
      const text = await res.text().catch(() => '');
      statuses[String(res.status)] = (statuses[String(res.status)] ?? 0) + 1;
      if (res.status >= 500) failures.push(`${label}: ${res.status} ${text.slice(0, 120)}`);
      const problem = envelopeProblem(res.status, res.headers.get('content-type') ?? '', text);
      if (problem) failures.push(`${label}: ${res.status} ${problem}`);
      const after = await target.fingerprint();
      if (res.status >= 400 && after !== before) failures.push(`${label}: refused with ${res.status} but stored something (${before} -> ${after})`);
      before = after;
    }
  }
  failures.push(...(await unlistedQueryRoutes(target)));
  const health = await fetch(`${target.base}${target.healthPath}`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
  if (health.status !== 200) failures.push(`health check answered ${health.status} after the sweep`);
  return { attempts, durationMs: Math.round(performance.now() - started), failures, statuses };
}

/** `SWEEP_SEED=<n>` reproduces a run; otherwise a fresh seed, printed by the test. */
export function sweepSeed(): number {
  const given = Number(process.env['SWEEP_SEED']);
  return Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
}

/**
 * GET routes that check their query against a schema (an unknown parameter is refused by
 * name) but are missing from the battery's QUERY_FIELDS: their parameters would go unswept.
 */
async function unlistedQueryRoutes(target: SweepTarget): Promise<string[]> {
  const out: string[] = [];
  for (const route of target.routes) {
    if (route.method !== 'GET' || QUERY_FIELDS[route.path]) continue;
    const path = route.path.replace(/:([A-Za-z_]+)(\{[^}]*\})?/g, (_, n: string) => target.credentials.params[n] ?? 'x');
    const res = await fetch(`${target.base}${path}?${QUERY_PROBE}=1`, {
      headers: target.credentials.valid,
      redirect: 'manual',
      signal: AbortSignal.timeout(ANSWER_BOUND_MS),
    });
    const text = await res.text().catch(() => '');
    if (res.status === 400 && text.includes(QUERY_PROBE))
      out.push(`GET ${route.path}: takes query parameters but is not in the sweep's QUERY_FIELDS (test/sweep/battery.ts)`);
  }
  return out;
}
