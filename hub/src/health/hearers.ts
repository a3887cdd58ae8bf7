/**
 * Who hears a health alert open or close (docs/health.md "Who hears it"): the evaluator runs
 * each hearer in the transaction that changes the alerts, so a change and its deliveries
 * commit together. The admins' bot messages (messaging/health-messages.ts) and the webhook
 * targets (webhooks/health-events.ts) are wired at the composition root (hearers.ts); health
 * imports neither. The live page hears the `HEALTH_CHANNEL` notification after commit.
 */
import type { StatementSession } from '../db/session.ts';

export interface HealthChanges {
  opened: readonly string[];
  closed: readonly string[];
}

export type HealthHearer = (tx: StatementSession, now: Date, changes: HealthChanges) => Promise<void>;
