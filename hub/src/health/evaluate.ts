/**
 * The health evaluator (docs/health.md): one look at every collector, its cameras and its
 * load, then the alerts opened and closed in one transaction with their live NOTIFY and their
 * bot messages. Run every minute (start-workers.ts) with the injected clock; tests call it
 * directly. Opening is idempotent (the unique index of open alerts), so two evaluators, or a
 * tick repeated, never open a second alert for one condition.
 */
import { heartbeatCameraSchema, type HeartbeatCamera } from '@alpr/shared/protocol/collector';
import type { Clock } from '../platform/clock.ts';
import type { HubConfig } from '../platform/config/hub-config.ts';
import { connectivity } from '../collectors/heartbeat-interval.ts';
import type { DbSession } from '../db/session.ts';
import type { Log } from '../platform/log.ts';
import { cameraName } from '../alerts/payload.ts';
import { configWithCameraNames } from '../collectors/cameras/names-sql.ts';
import type { HealthHearer } from './hearers.ts';
import { HEALTH_CHANNEL } from './channel.ts';
import { KEEP_LOAD_MINUTES_MS, KEEP_READ_HOURS_MS, LOAD, QUIET } from './kinds.ts';
import { collectorFindings, type Finding, type LoadWindow } from './rules.ts';
import { hourStart, pastWeeksOf, type ReadHistory } from './usual.ts';
import { hubFindings } from './hub-rules.ts';
import { keyLag } from '../db/unkeyed-reads.ts';

export interface HealthContext {
  db: DbSession;
  clock: Clock;
  log: Log;
  config: Pick<HubConfig, 'heartbeatSeconds'>;
  /** Run in the transaction of every look that opens or closes alerts (hearers.ts at the root). */
  hearers: readonly HealthHearer[];
}

export interface EvaluationResult {
  opened: string[];
  closed: string[];
}

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

type CollectorRow = {
  id: string;
  site_name: string;
  status: string;
  last_heartbeat_at: Date | string | null;
  last_heartbeat: Record<string, unknown> | string | null;
  config: Record<string, unknown> | string;
  named: Record<string, unknown> | string;
};

type OpenRow = {
  id: string;
  kind: string;
  /** null: an alert about the hub itself (hub-rules.ts). */
  collector_id: string | null;
  camera_id: string | null;
};

const keyOf = (kind: string, collectorId: string | null, cameraId: string | null): string => `${kind}|${collectorId ?? ''}|${cameraId ?? ''}`;

function heartbeatCameras(snapshot: Record<string, unknown> | null): HeartbeatCamera[] {
  const list = snapshot?.['cameras'];
  if (!Array.isArray(list)) return [];
  return list.flatMap((c) => {
    const parsed = heartbeatCameraSchema.safeParse(c);
    return parsed.success ? [parsed.data] : [];
  });
}

/** The hours whose reads the rules need at `now`: the last 7, and each of them 1-4 weeks back. */
function hoursNeeded(now: Date): number[] {
  const current = hourStart(now.getTime());
  const recent = Array.from({ length: Math.ceil(QUIET.maxSpanMs / HOUR_MS) + 1 }, (_, i) => current - i * HOUR_MS);
  return [...recent, ...recent.flatMap(pastWeeksOf)];
}

async function readHistories(db: DbSession, now: Date): Promise<Map<string, Map<string, ReadHistory>>> {
  const spans = await db.sql<{ collector_id: string; camera_id: string; first_read_at: Date | string; last_read_at: Date | string }>(
    `SELECT collector_id::text AS collector_id, camera_id, first_read_at, last_read_at FROM camera_read_spans`,
  );
  const hours = await db.sql<{ collector_id: string; camera_id: string; hour: Date | string; reads: number }>(
    `SELECT collector_id::text AS collector_id, camera_id, hour, reads FROM camera_read_hours
      WHERE hour IN (SELECT jsonb_array_elements_text($1::jsonb)::timestamptz)`,
    [JSON.stringify(hoursNeeded(now).map((h) => new Date(h).toISOString()))],
  );
  const byCamera = new Map<string, Map<number, number>>();
  for (const h of hours) {
    const key = `${h.collector_id}|${h.camera_id}`;
    const map = byCamera.get(key) ?? new Map<number, number>();
    map.set(new Date(h.hour).getTime(), Number(h.reads));
    byCamera.set(key, map);
  }
  const out = new Map<string, Map<string, ReadHistory>>();
  for (const s of spans) {
    const cameras = out.get(s.collector_id) ?? new Map<string, ReadHistory>();
    cameras.set(s.camera_id, {
      firstReadAt: new Date(s.first_read_at),
      lastReadAt: new Date(s.last_read_at),
      readsByHour: byCamera.get(`${s.collector_id}|${s.camera_id}`) ?? new Map(),
    });
    out.set(s.collector_id, cameras);
  }
  return out;
}

async function loadWindows(db: DbSession, now: Date): Promise<Map<string, LoadWindow>> {
  const minute = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS;
  const rows = await db.sql<{ collector_id: string; max_items: number; max_batch: number; max_bytes: string; volume: number; errors: number }>(
    `SELECT collector_id::text AS collector_id,
            COALESCE(max(items) FILTER (WHERE minute >= $1::timestamptz), 0)::int AS max_items,
            COALESCE(max(max_batch_items) FILTER (WHERE minute >= $1::timestamptz), 0)::int AS max_batch,
            COALESCE(max(max_request_bytes) FILTER (WHERE minute >= $1::timestamptz), 0)::text AS max_bytes,
            COALESCE(sum(items + failed_requests), 0)::int AS volume,
            COALESCE(sum(rejected_items + failed_requests), 0)::int AS errors
       FROM collector_load_minutes WHERE minute >= $2::timestamptz AND minute <= $3::timestamptz GROUP BY collector_id`,
    [
      new Date(minute - (LOAD.windowMinutes - 1) * MINUTE_MS).toISOString(),
      new Date(minute - (LOAD.errorWindowMinutes - 1) * MINUTE_MS).toISOString(),
      new Date(minute).toISOString(),
    ],
  );
  return new Map(
    rows.map((r) => [
      r.collector_id,
      {
        maxItemsPerMinute: Number(r.max_items),
        maxBatchItems: Number(r.max_batch),
        maxRequestBytes: Number(r.max_bytes),
        volume: Number(r.volume),
        errors: Number(r.errors),
      },
    ]),
  );
}

const NO_LOAD: LoadWindow = { maxItemsPerMinute: 0, maxBatchItems: 0, maxRequestBytes: 0, volume: 0, errors: 0 };

export async function evaluateHealth(ctx: HealthContext): Promise<EvaluationResult> {
  const now = ctx.clock.now();
  const collectors = await ctx.db.sql<CollectorRow>(
    `SELECT c.id::text AS id, c.site_name, c.status, c.last_heartbeat_at, c.last_heartbeat, c.config, ${configWithCameraNames('c')} AS named FROM collectors c`,
  );
  const [reads, load, open] = [await readHistories(ctx.db, now), await loadWindows(ctx.db, now), await openAlerts(ctx.db)];

  const findings = new Map<string, { collectorId: string | null; finding: Finding }>();
  const searchKeysLag = await keyLag(ctx.db, now).catch((err: unknown) => {
    ctx.log.warn({ err }, 'the search keys lag could not be read; its health alert stays as it is');
    return undefined;
  });
  for (const finding of hubFindings({ searchKeysLag })) findings.set(keyOf(finding.kind, null, null), { collectorId: null, finding });
  const inactive = new Set<string>();
  for (const row of collectors) {
    if (row.status !== 'active') {
      inactive.add(row.id);
      continue;
    }
    const lastHeartbeatAt = row.last_heartbeat_at === null ? null : new Date(row.last_heartbeat_at);
    const config = json(row.config);
    const named = json(row.named);
    const online = connectivity({ status: row.status, lastHeartbeatAt, config }, ctx.config, now) === 'online';
    const snapshot = row.last_heartbeat === null ? null : json(row.last_heartbeat);
    for (const finding of collectorFindings(
      {
        id: row.id,
        name: row.site_name,
        online,
        lastHeartbeatAt,
        cameras: heartbeatCameras(snapshot),
        reads: reads.get(row.id) ?? new Map(),
        cameraName: (id) => cameraName(named, id),
        load: load.get(row.id) ?? NO_LOAD,
      },
      now,
    ))
      findings.set(keyOf(finding.kind, row.id, finding.cameraId), { collectorId: row.id, finding });
  }

  const openByKey = new Map(open.map((o) => [keyOf(o.kind, o.collector_id, o.camera_id), o]));
  const toOpen = [...findings.values()].filter(({ finding, collectorId }) => finding.on && !openByKey.has(keyOf(finding.kind, collectorId, finding.cameraId)));
  const toClose = open.filter((o) => {
    if (o.collector_id !== null && inactive.has(o.collector_id)) return true; // suspended or decommissioned on purpose: nothing to watch
    const f = findings.get(keyOf(o.kind, o.collector_id, o.camera_id));
    return f !== undefined && !f.finding.on;
  });
  if (toOpen.length === 0 && toClose.length === 0) return { opened: [], closed: [] };

  return ctx.db.transaction(async (tx) => {
    const opened: string[] = [];
    const closed: string[] = [];
    for (const { collectorId, finding } of toOpen) {
      // Each kind of alert has its own "open once" index (0024 for a collector's, 0039 for the hub's).
      const conflict =
        collectorId === null
          ? `ON CONFLICT (kind) WHERE closed_at IS NULL AND collector_id IS NULL`
          : `ON CONFLICT (kind, collector_id, COALESCE(camera_id, '')) WHERE closed_at IS NULL`;
      const [row] = await tx.sql<{ id: string }>(
        `INSERT INTO health_alerts (kind, collector_id, camera_id, camera_name, opened_at, message, detail)
         VALUES ($1, $2::uuid, $3, $4, $5::timestamptz, $6, $7::jsonb)
         ${conflict} DO NOTHING
         RETURNING id::text AS id`,
        [finding.kind, collectorId, finding.cameraId, finding.cameraName, now.toISOString(), finding.message, JSON.stringify(finding.detail)],
      );
      if (row) opened.push(row.id);
    }
    for (const o of toClose) {
      const [row] = await tx.sql<{ id: string }>(
        `UPDATE health_alerts SET closed_at = $2::timestamptz WHERE id = $1::bigint AND closed_at IS NULL RETURNING id::text AS id`,
        [o.id, now.toISOString()],
      );
      if (row) closed.push(row.id);
    }
    if (opened.length + closed.length > 0) {
      for (const hear of ctx.hearers) await hear(tx, now, { opened, closed });
      await tx.sql(`SELECT pg_notify($1, $2)`, [HEALTH_CHANNEL, JSON.stringify({ opened, closed })]);
      ctx.log.info({ opened, closed }, 'health alerts changed');
    }
    return { opened, closed };
  });
}

async function openAlerts(db: DbSession): Promise<OpenRow[]> {
  return db.sql<OpenRow>(`SELECT id::text AS id, kind, collector_id::text AS collector_id, camera_id FROM health_alerts WHERE closed_at IS NULL`);
}

/**
 * Drops reads per hour older than 5 weeks, folding them into reads per month (migration 0030,
 * kept for the public account) in the same statement: a crash or a second hub pruning at the
 * same moment cannot count an hour twice or lose it (a row another prune already deleted is
 * not returned again). Drops load minutes older than a day.
 */
export async function pruneHealthCounts(db: DbSession, now: Date): Promise<void> {
  await db.sql(
    `WITH gone AS (DELETE FROM camera_read_hours WHERE hour < $1::timestamptz RETURNING collector_id, camera_id, hour, reads)
     INSERT INTO camera_read_months AS m (collector_id, camera_id, month, reads)
     SELECT collector_id, camera_id, date_trunc('month', hour AT TIME ZONE 'UTC')::date, sum(reads) FROM gone GROUP BY 1, 2, 3
     ON CONFLICT (collector_id, camera_id, month) DO UPDATE SET reads = m.reads + EXCLUDED.reads`,
    [new Date(now.getTime() - KEEP_READ_HOURS_MS).toISOString()],
  );
  await db.sql(`DELETE FROM collector_load_minutes WHERE minute < $1::timestamptz`, [new Date(now.getTime() - KEEP_LOAD_MINUTES_MS).toISOString()]);
}
