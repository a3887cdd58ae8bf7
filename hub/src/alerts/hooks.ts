/**
 * "Alerts raised in this transaction": what other domains do with new alerts inside the
 * transaction that raises them (the messaging bot queues its deliveries there, so an alert
 * and its queue items commit together or not at all). They register at start-up
 * (start-workers.ts); alerts never import them, so the dependency points one way.
 */
import type { DbSession } from '../db/session.ts';

export interface RaisedAlert {
  id: string;
  detectionPk: string;
  watchlistId: string;
  plate: string;
}

/** Runs inside the raising transaction; a throw rolls the batch back (its items are retried). */
export type RaisedInTransaction = (tx: DbSession, raised: readonly RaisedAlert[], now: Date) => Promise<void>;

export interface AlertHooks {
  /** Register a hook: it runs, in registration order, for every batch that raised alerts. */
  onRaisedInTransaction(hook: RaisedInTransaction): void;
  /** Run the registered hooks (raise.ts). */
  raisedInTransaction(tx: DbSession, raised: readonly RaisedAlert[], now: Date): Promise<void>;
}

export function createAlertHooks(): AlertHooks {
  const hooks: RaisedInTransaction[] = [];
  return {
    onRaisedInTransaction: (hook) => void hooks.push(hook),
    async raisedInTransaction(tx, raised, now) {
      if (raised.length === 0) return;
      for (const hook of hooks) await hook(tx, raised, now);
    },
  };
}
