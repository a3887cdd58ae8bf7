import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uuid, varchar } from 'drizzle-orm/pg-core';
import { bigintString, timestamptz } from './columns.ts';

/** Write-once: trigger + grants (0007, 0008) refuse UPDATE, DELETE and TRUNCATE. */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigintString('id')
      .primaryKey()
      .default(sql`nextval('audit_log_id_seq')`),
    at: timestamptz('at').notNull().defaultNow(),
    actorUserId: uuid('actor_user_id'),
    actorCollectorId: uuid('actor_collector_id'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    ip: varchar('ip', { length: 45 }),
    userAgent: text('user_agent'),
    detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at),
    index('audit_log_actor_user_idx').on(t.actorUserId, t.at),
    index('audit_log_target_idx').on(t.targetType, t.targetId),
  ],
);
