import { eq } from 'drizzle-orm';
import type { HeartbeatRequest, HeartbeatResponse } from '@alpr/shared/protocol/collector';
import { collectors, type HeartbeatSnapshot } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { takePendingCommands } from './commands.ts';
import type { CollectorContext } from './context.ts';
import { heartbeatIntervalSeconds } from './heartbeat-interval.ts';

/**
 * Heartbeats an appliance sends before one interval of uptime (`uptime_seconds`; its first is
 * sent at start) report the cameras it has not reached yet: a fresh demo's first one says 0 of
 * 3, and its cameras answer within seconds, well before the next one. The report's
 * "fewest cameras online" (docs/dashboard.md "Reports") leaves those out by counting them as
 * all cameras up (the fold keeps the least); a camera still down after the warm-up shows in the
 * next heartbeat. The last-heartbeat snapshot keeps the real figure.
 */
export const STARTUP_GRACE_INTERVALS = 1;

export function camerasOnlineForReport(input: Pick<HeartbeatRequest, 'uptime_seconds' | 'cameras_online' | 'cameras_total'>, intervalSeconds: number): number {
  const warmingUp = input.uptime_seconds < STARTUP_GRACE_INTERVALS * intervalSeconds;
  return warmingUp && input.cameras_total !== undefined ? Math.max(input.cameras_online, input.cameras_total) : input.cameras_online;
}

/**
 * A heartbeat (docs/protocol.md): keeps the body as the collector's last
 * snapshot with its time and versions, and answers with every unacknowledged command,
 * signed, plus the interval to keep (docs/collectors.md, "Commands").
 */
export async function heartbeat(ctx: CollectorContext, collectorId: string, input: HeartbeatRequest): Promise<HeartbeatResponse> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const snapshot: HeartbeatSnapshot & Record<string, unknown> = {
      uptime_seconds: input.uptime_seconds,
      queue_depth: input.queue_depth,
      cameras_online: input.cameras_online,
      config_version: input.config_version,
      ...(input.cameras_total !== undefined ? { cameras_total: input.cameras_total } : {}),
      ...(input.last_upload_at !== undefined ? { last_upload_at: input.last_upload_at } : {}),
      ...(input.errors !== undefined ? { errors: input.errors } : {}),
      // Per-camera states for health alerts (health/rules.ts).
      ...(input.cameras !== undefined ? { cameras: input.cameras } : {}),
    };
    const [row] = await tx.db
      .update(collectors)
      .set({
        lastHeartbeat: snapshot,
        lastHeartbeatAt: now,
        ...(input.edge_version !== undefined ? { edgeVersion: input.edge_version } : {}),
        ...(input.os_version !== undefined ? { osVersion: input.os_version } : {}),
        updatedAt: now,
      })
      .where(eq(collectors.id, collectorId))
      .returning({ config: collectors.config, status: collectors.status });
    if (!row) throw new HubError('unauthorized', 'unknown collector');
    // Health over time, one row per hour (migration 0017).
    const interval = heartbeatIntervalSeconds(ctx.config, row.config);
    await tx.sql(
      `INSERT INTO collector_health_hours AS h (collector_id, hour, heartbeats, max_queue_depth, min_cameras_online, cameras_total)
       VALUES ($1, date_trunc('hour', $2::timestamptz, 'UTC'), 1, $3, $4, $5)
       ON CONFLICT (collector_id, hour) DO UPDATE SET heartbeats = h.heartbeats + 1,
         max_queue_depth = GREATEST(h.max_queue_depth, EXCLUDED.max_queue_depth),
         min_cameras_online = LEAST(h.min_cameras_online, EXCLUDED.min_cameras_online),
         cameras_total = COALESCE(EXCLUDED.cameras_total, h.cameras_total)`,
      [collectorId, now.toISOString(), input.queue_depth, camerasOnlineForReport(input, interval), input.cameras_total ?? null],
    );
    const pending = await takePendingCommands(tx, collectorId, now);
    return {
      pending_commands: pending,
      server_time: now.toISOString(),
      heartbeat_interval_seconds: interval,
      // The appliance shows "suspended by the hub" from this even with nothing to upload.
      collector_status: row.status === 'disabled' ? 'disabled' : 'active',
    };
  });
}
