/**
 * Test helpers for health alerts: a site (a claimed collector of the test hub) that beats and
 * uploads over real HTTP at the movable clock's time, and weeks of camera history seeded as
 * the ingest fold would have left it. Not imported by production code.
 */
import { HEARTBEAT_PATH } from '@alpr/shared/protocol/paths';
import { randomUUID } from 'node:crypto';
import type { HeartbeatCamera } from '@alpr/shared/protocol/collector';
import { claim } from '../collectors/claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import { createCollector } from '../collectors/create-collector.ts';
import type { MovableClock } from '../collectors/collectors.test-helper.ts';
import { sampleDetection, uploadBatch, type BatchEntry, type TestHub } from '../ingest/uploads.test-helper.ts';
import { evaluateHealth, type HealthContext } from './evaluate.ts';

export interface Site {
  id: string;
  apiKey: string;
  beat(cameras?: HeartbeatCamera[]): Promise<void>;
  /** One batch of `count` reads from `cameraId` (uploadBatch: throws unless the hub took it); returns the HTTP status, 201 or 202. */
  upload(count: number, cameraId: string, options?: { badPlates?: number; images?: BatchEntry['fullScene'][] }): Promise<number>;
}

export async function newSite(hub: TestHub, clock: MovableClock, name: string): Promise<Site> {
  const created = await createCollector(hub.deps, SYSTEM_ACTOR, { siteName: name });
  const enrolled = await claim(hub.deps, { claim_code: created.claimCode, hardware_id: `hw-${randomUUID()}` }, '127.0.0.1');
  const apiKey = enrolled.api_key;
  return {
    id: enrolled.collector_id,
    apiKey,
    async beat(cameras) {
      const res = await fetch(`${hub.url}${HEARTBEAT_PATH}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ uptime_seconds: 100, queue_depth: 0, cameras_online: 1, config_version: 0, ...(cameras ? { cameras } : {}) }),
      });
      if (res.status !== 200) throw new Error(`heartbeat ${res.status}: ${await res.text()}`);
    },
    async upload(count, cameraId, options = {}) {
      const at = clock.now().getTime() - 30_000;
      const entries: BatchEntry[] = Array.from({ length: count }, (_, i) => ({
        detection: sampleDetection({
          camera: { id: cameraId, mac: '7cd8b328641b' },
          // Longer than the stored maximum of 20 characters: a rejected item.
          plate: { text: i < (options.badPlates ?? 0) ? 'X'.repeat(25) : `HL${String(i).padStart(5, '0')}`, confidence: 0.9 },
          timestamp: new Date(at + i).toISOString(),
        }),
        ...(options.images?.[i] ? { fullScene: options.images[i] } : {}),
      }));
      const { status } = await uploadBatch(hub, apiKey, entries);
      // The hub holds its load counts for a second (ingest/load-record.ts): written now, so
      // the evaluation that follows sees this batch.
      await hub.deps.uploadLoad?.flush();
      return status;
    },
  };
}

/**
 * `perHour` reads in every hour of the 4 weeks before `until` (exclusive), and the camera's
 * span from then to its last read at `lastReadAt`, as the ingest fold writes them.
 */
export async function seedHistory(ctx: HealthContext, collectorId: string, cameraId: string, perHour: number, until: Date, lastReadAt = until): Promise<void> {
  const from = new Date(until.getTime() - 28 * 24 * 3_600_000 - 3_600_000);
  await ctx.db.sql(
    `INSERT INTO camera_read_hours (collector_id, camera_id, hour, reads)
     SELECT $1::uuid, $2, h, $3 FROM generate_series($4::timestamptz, $5::timestamptz - interval '1 hour', interval '1 hour') AS h
     ON CONFLICT (collector_id, camera_id, hour) DO UPDATE SET reads = EXCLUDED.reads`,
    [collectorId, cameraId, perHour, from.toISOString(), until.toISOString()],
  );
  await ctx.db.sql(
    `INSERT INTO camera_read_spans (collector_id, camera_id, first_read_at, last_read_at) VALUES ($1::uuid, $2, $3::timestamptz, $4::timestamptz)
     ON CONFLICT (collector_id, camera_id) DO UPDATE SET first_read_at = EXCLUDED.first_read_at, last_read_at = EXCLUDED.last_read_at`,
    [collectorId, cameraId, from.toISOString(), lastReadAt.toISOString()],
  );
}

export interface OpenAlertRow {
  id: string;
  kind: string;
  camera_id: string | null;
  opened_at: Date;
  closed_at: Date | null;
  message: string;
}

export async function alertsOf(ctx: HealthContext, collectorId: string): Promise<OpenAlertRow[]> {
  return ctx.db.sql<OpenAlertRow & Record<string, unknown>>(
    `SELECT id::text AS id, kind, camera_id, opened_at, closed_at, message FROM health_alerts WHERE collector_id = $1::uuid ORDER BY id`,
    [collectorId],
  );
}

/** Minute ticks: advance, beat (unless silent), evaluate; returns the opened ids per tick. */
export async function tick(
  ctx: HealthContext,
  clock: MovableClock,
  sites: readonly Site[],
  minutes: number,
  each?: (minute: number) => Promise<void>,
): Promise<string[][]> {
  const out: string[][] = [];
  for (let m = 1; m <= minutes; m++) {
    clock.advance(60_000);
    for (const s of sites) await s.beat();
    if (each) await each(m);
    out.push((await evaluateHealth(ctx)).opened);
  }
  return out;
}
