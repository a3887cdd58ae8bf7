import { asc, eq } from 'drizzle-orm';
import { collectors, type CollectorStatus } from '../db/schema/collectors.ts';
import { HubError } from '../platform/errors.ts';
import { isUuid } from '@alpr/shared/validation/uuid';
import type { CollectorContext } from './context.ts';
import { connectivity, heartbeatIntervalSeconds, heartbeatsArriving, type Connectivity } from './heartbeat-interval.ts';

export interface CollectorSummary {
  id: string;
  siteName: string;
  siteAddress: string | null;
  status: CollectorStatus;
  /** Derived, never stored: see heartbeat-interval.ts. */
  connectivity: Connectivity;
  /** Heard within 3 intervals, whatever the status: a suspended box still heartbeats. */
  heartbeatsArriving: boolean;
  heartbeatIntervalSeconds: number;
  lastHeartbeatAt: Date | null;
  lastHeartbeat: Record<string, unknown> | null;
  configVersion: number;
  hardwareId: string | null;
  edgeVersion: string | null;
  osVersion: string | null;
  claimedAt: Date | null;
  claimCodeExpiresAt: Date | null;
  createdAt: Date;
  /** Marked for replacement: the next claim binds a new box (replace.ts). */
  pendingReplacement: boolean;
  /** Set while suspended (status `disabled`, suspend.ts). */
  suspendedAt: Date | null;
  suspendReason: string | null;
}

type Row = typeof collectors.$inferSelect;

function summarize(ctx: CollectorContext, row: Row, now: Date): CollectorSummary {
  const intervalSeconds = heartbeatIntervalSeconds(ctx.config, row.config);
  return {
    id: row.id,
    siteName: row.siteName,
    siteAddress: row.siteAddress,
    status: row.status,
    connectivity: connectivity(row, ctx.config, now),
    heartbeatsArriving: heartbeatsArriving(row, ctx.config, now),
    heartbeatIntervalSeconds: intervalSeconds,
    lastHeartbeatAt: row.lastHeartbeatAt,
    lastHeartbeat: row.lastHeartbeat,
    configVersion: row.configVersion,
    hardwareId: row.hardwareId,
    edgeVersion: row.edgeVersion,
    osVersion: row.osVersion,
    claimedAt: row.claimedAt,
    claimCodeExpiresAt: row.claimCodeExpiresAt,
    createdAt: row.createdAt,
    pendingReplacement: row.pendingReplacement,
    suspendedAt: row.suspendedAt,
    suspendReason: row.suspendReason,
  };
}

/** One collector with its online/offline state at the clock's now. */
export async function collectorStatus(ctx: CollectorContext, collectorId: string): Promise<CollectorSummary> {
  if (!isUuid(collectorId)) throw new HubError('not_found', 'no such collector');
  const [row] = await ctx.db.db.select().from(collectors).where(eq(collectors.id, collectorId));
  if (!row) throw new HubError('not_found', 'no such collector');
  return summarize(ctx, row, ctx.clock.now());
}

/** Every collector (100 at the scale target), oldest first. */
export async function listCollectors(ctx: CollectorContext): Promise<CollectorSummary[]> {
  const rows = await ctx.db.db.select().from(collectors).orderBy(asc(collectors.createdAt), asc(collectors.id));
  const now = ctx.clock.now();
  return rows.map((row) => summarize(ctx, row, now));
}
