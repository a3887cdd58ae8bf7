import { sql } from 'drizzle-orm';
import { index, pgTable, primaryKey, uuid, varchar } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns.ts';
import { users } from './users.ts';

/**
 * Sites, the unit of access (migration 0040, docs/sites.md). The default site (fixed id)
 * holds every collector no admin has moved; names are unique case-insensitively.
 */
export const DEFAULT_SITE_ID = '00000000-0000-0000-0000-000000000001';

export const sites = pgTable('sites', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  name: varchar('name', { length: 100 }).notNull(),
  timeZone: varchar('time_zone', { length: 64 }),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});

export const siteGroups = pgTable('site_groups', {
  id: uuid('id')
    .primaryKey()
    .default(sql`gen_random_uuid()`),
  name: varchar('name', { length: 100 }).notNull(),
  createdAt: timestamptz('created_at').notNull().defaultNow(),
});

export const siteGroupMembers = pgTable(
  'site_group_members',
  {
    groupId: uuid('group_id')
      .notNull()
      .references(() => siteGroups.id, { onDelete: 'cascade' }),
    siteId: uuid('site_id')
      .notNull()
      .references(() => sites.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.siteId] }), index('site_group_members_site_idx').on(t.siteId)],
);

/** A user's explicit set (when `users.all_sites` is false): each row a site or a group. */
export const userSites = pgTable('user_sites', {
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  siteId: uuid('site_id').references(() => sites.id, { onDelete: 'cascade' }),
  groupId: uuid('group_id').references(() => siteGroups.id, { onDelete: 'cascade' }),
});
