/**
 * Health alerts to webhook targets (docs/webhooks.md "Health events"): each health alert the
 * evaluator opens or closes becomes one `health.opened` or `health.closed` delivery per
 * target that asked for `health`, queued in the evaluator's transaction beside the admins'
 * bot messages, so an opened alert and its deliveries commit together and a re-run queues
 * nothing twice (the event key names the alert and the change).
 */
import type { StatementSession } from '../db/session.ts';
import type { HealthHearer } from '../health/hearers.ts';
import { healthAlertsById } from '../health/present.ts';
import { insertDeliveries, type Queued } from './enqueue.ts';
import { collectorSites } from './collector-sites.ts';
import { siteMatches, type WebhookFilter } from './filter.ts';
import { healthBody, type HealthEventRecord } from './payload.ts';
import { newMessageId } from './sign.ts';

/**
 * A health event has a collector and maybe a camera, but no plate and no watchlist: a target
 * filtered by plate or by list hears no health events; one filtered by collector or camera
 * hears that collector's or camera's; one filtered by sites, their collectors' (never the
 * hub's own health, which belongs to no site).
 */
export function healthFilterMatches(filter: WebhookFilter, record: HealthEventRecord, siteId?: string): boolean {
  if (filter.plate_pattern !== undefined || filter.watchlist_id !== undefined) return false;
  if (filter.collector_id !== undefined && filter.collector_id !== record.collector_id) return false;
  if (filter.camera_id !== undefined && filter.camera_id !== record.camera_id) return false;
  return siteMatches(filter, siteId);
}

export async function enqueueHealthWebhooks(
  tx: StatementSession,
  now: Date,
  changes: { opened: readonly HealthEventRecord[]; closed: readonly HealthEventRecord[] },
): Promise<number> {
  if (changes.opened.length + changes.closed.length === 0) return 0;
  const targets = await tx.sql<{ id: string; filter: WebhookFilter }>(
    `SELECT id::text AS id, filter FROM webhook_targets WHERE enabled AND 'health' = ANY (events)`,
  );
  const sites = await collectorSites(
    tx,
    targets.map((t) => t.filter),
    [...changes.opened, ...changes.closed].map((r) => r.collector_id),
  );
  const items: Queued[] = [];
  for (const [event, records] of [
    ['opened', changes.opened],
    ['closed', changes.closed],
  ] as const) {
    for (const record of records) {
      const body = healthBody(record, event, now);
      for (const target of targets) {
        if (!healthFilterMatches(target.filter ?? {}, record, record.collector_id === null ? undefined : sites.get(record.collector_id))) continue;
        items.push({ target_id: target.id, message_id: newMessageId(), event_type: `health.${event}`, event_key: `health:${event}:${record.id}`, body });
      }
    }
  }
  return insertDeliveries(tx, items, now);
}

/** Whether any enabled target wants health events: the evaluator loads records only then. */
export async function healthTargetsExist(tx: StatementSession): Promise<boolean> {
  const [row] = await tx.sql<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_targets WHERE enabled AND 'health' = ANY (events)`);
  return (row?.n ?? 0) > 0;
}

/** The webhooks' hearer of health changes (health/hearers.ts), wired at the root (hearers.ts). */
export const queueHealthWebhooks: HealthHearer = async (tx, now, changes) => {
  if (!(await healthTargetsExist(tx))) return;
  await enqueueHealthWebhooks(tx, now, { opened: await healthAlertsById(tx, changes.opened), closed: await healthAlertsById(tx, changes.closed) });
};
