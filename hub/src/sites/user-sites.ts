/**
 * A user's sites as an admin sets them (docs/sites.md "Who sees what"): every site, or a set
 * of sites and site groups. Read by the scope on every request (scope.ts), so a change holds
 * at once, on open live sockets too.
 */
import type { DbSession } from '../db/session.ts';
import { HubError } from '../platform/errors.ts';

export interface UserSites {
  user_id: string;
  /** Admins always see every site (scope.ts); this is what the row says for the others. */
  all_sites: boolean;
  site_ids: string[];
  group_ids: string[];
}

export async function userSites(db: DbSession, userId: string): Promise<UserSites> {
  const [row] = await db.sql<{ all_sites: boolean; site_ids: string | null; group_ids: string | null }>(
    `SELECT u.all_sites,
       (SELECT json_agg(us.site_id::text ORDER BY us.site_id)::text FROM user_sites us WHERE us.user_id = u.id AND us.site_id IS NOT NULL) AS site_ids,
       (SELECT json_agg(us.group_id::text ORDER BY us.group_id)::text FROM user_sites us WHERE us.user_id = u.id AND us.group_id IS NOT NULL) AS group_ids
     FROM users u WHERE u.id = $1::uuid`,
    [userId],
  );
  if (!row) throw new HubError('not_found', 'no such user');
  const parse = (t: string | null): string[] => (t ? (JSON.parse(t) as string[]) : []);
  return { user_id: userId, all_sites: row.all_sites, site_ids: parse(row.site_ids), group_ids: parse(row.group_ids) };
}

/** Replaces the user's set whole. With `all_sites` the lists are kept but have no effect. */
export async function setUserSites(
  db: DbSession,
  userId: string,
  input: { all_sites: boolean; site_ids: readonly string[]; group_ids: readonly string[] },
): Promise<UserSites> {
  await db.transaction(async (tx) => {
    const [user] = await tx.sql<{ id: string }>(`SELECT id::text AS id FROM users WHERE id = $1::uuid FOR UPDATE`, [userId]);
    if (!user) throw new HubError('not_found', 'no such user');
    const siteIds = [...new Set(input.site_ids)];
    const groupIds = [...new Set(input.group_ids)];
    const [known] = await tx.sql<{ sites: number; groups: number }>(
      `SELECT (SELECT count(*)::int FROM sites WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))) AS sites,
              (SELECT count(*)::int FROM site_groups WHERE id IN (SELECT value::uuid FROM json_array_elements_text($2::json))) AS groups`,
      [JSON.stringify(siteIds), JSON.stringify(groupIds)],
    );
    if (Number(known?.sites ?? 0) !== siteIds.length) throw new HubError('bad_request', 'site_ids: names a site that does not exist');
    if (Number(known?.groups ?? 0) !== groupIds.length) throw new HubError('bad_request', 'group_ids: names a site group that does not exist');
    await tx.sql(`UPDATE users SET all_sites = $2, updated_at = now() WHERE id = $1::uuid`, [userId, input.all_sites]);
    await tx.sql(`DELETE FROM user_sites WHERE user_id = $1::uuid`, [userId]);
    await tx.sql(
      `INSERT INTO user_sites (user_id, site_id, group_id)
       SELECT $1::uuid, value::uuid, NULL FROM json_array_elements_text($2::json)
       UNION ALL SELECT $1::uuid, NULL, value::uuid FROM json_array_elements_text($3::json)`,
      [userId, JSON.stringify(siteIds), JSON.stringify(groupIds)],
    );
  });
  return userSites(db, userId);
}
