/**
 * Sites and site groups as admins manage them (docs/sites.md): create, rename, delete, group,
 * and move a collector to a site. Plain SQL over migration 0040's tables; every change is
 * audited by the admin route that calls it (audit/middleware.ts).
 */
import { isValidTimeZone } from '@alpr/shared/detection/time';
import type { DbSession } from '../db/session.ts';
import { DEFAULT_SITE_ID } from '../db/schema/sites.ts';
import { HubError } from '../platform/errors.ts';

export interface SiteRecord {
  id: string;
  name: string;
  time_zone: string | null;
  collector_ids: string[];
  group_ids: string[];
  is_default: boolean;
  created_at: string;
}

export interface SiteGroupRecord {
  id: string;
  name: string;
  site_ids: string[];
  created_at: string;
}

const ids = (text: string | null): string[] => (text ? (JSON.parse(text) as string[]) : []);
const iso = (d: Date | string): string => new Date(d).toISOString();

type SiteRow = { id: string; name: string; time_zone: string | null; collector_ids: string | null; group_ids: string | null; created_at: Date };
const SITE_SELECT = `SELECT s.id::text AS id, s.name, s.time_zone, s.created_at,
  (SELECT json_agg(c.id::text ORDER BY c.id)::text FROM collectors c WHERE c.site_id = s.id) AS collector_ids,
  (SELECT json_agg(m.group_id::text ORDER BY m.group_id)::text FROM site_group_members m WHERE m.site_id = s.id) AS group_ids
  FROM sites s`;
const site = (r: SiteRow): SiteRecord => ({
  id: r.id,
  name: r.name,
  time_zone: r.time_zone,
  collector_ids: ids(r.collector_ids),
  group_ids: ids(r.group_ids),
  is_default: r.id === DEFAULT_SITE_ID,
  created_at: iso(r.created_at),
});

type GroupRow = { id: string; name: string; site_ids: string | null; created_at: Date };
const GROUP_SELECT = `SELECT g.id::text AS id, g.name, g.created_at,
  (SELECT json_agg(m.site_id::text ORDER BY m.site_id)::text FROM site_group_members m WHERE m.group_id = g.id) AS site_ids
  FROM site_groups g`;
const group = (r: GroupRow): SiteGroupRecord => ({ id: r.id, name: r.name, site_ids: ids(r.site_ids), created_at: iso(r.created_at) });

export async function listSites(db: DbSession): Promise<SiteRecord[]> {
  return (await db.sql<SiteRow>(`${SITE_SELECT} ORDER BY lower(s.name), s.id`)).map(site);
}

export async function getSite(db: DbSession, id: string): Promise<SiteRecord> {
  const [row] = await db.sql<SiteRow>(`${SITE_SELECT} WHERE s.id = $1::uuid`, [id]);
  if (!row) throw new HubError('not_found', 'no such site');
  return site(row);
}

function checkZone(timeZone: string | null | undefined): void {
  if (timeZone && !isValidTimeZone(timeZone)) throw new HubError('bad_request', 'time_zone: not an IANA time zone (Europe/Paris)');
}

/** Names are unique case-insensitively; the unique index settles a race, this gives the clear 409. */
async function refuseTakenName(db: DbSession, table: 'sites' | 'site_groups', name: string, except: string | null): Promise<void> {
  const [taken] = await db.sql<{ id: string }>(`SELECT id::text AS id FROM ${table} WHERE lower(name) = lower($1) AND ($2::uuid IS NULL OR id <> $2::uuid)`, [
    name,
    except,
  ]);
  if (taken) throw new HubError('conflict', `a ${table === 'sites' ? 'site' : 'site group'} named "${name}" already exists`);
}

export async function createSite(db: DbSession, input: { name: string; time_zone?: string | null | undefined }): Promise<SiteRecord> {
  checkZone(input.time_zone);
  const id = await db.transaction(async (tx) => {
    await refuseTakenName(tx, 'sites', input.name, null);
    const [row] = await tx.sql<{ id: string }>(`INSERT INTO sites (name, time_zone) VALUES ($1, $2) RETURNING id::text AS id`, [
      input.name,
      input.time_zone ?? null,
    ]);
    return row?.id ?? '';
  });
  return getSite(db, id);
}

export async function editSite(db: DbSession, id: string, input: { name?: string | undefined; time_zone?: string | null | undefined }): Promise<SiteRecord> {
  checkZone(input.time_zone);
  await db.transaction(async (tx) => {
    await getSite(tx, id);
    if (input.name !== undefined) {
      await refuseTakenName(tx, 'sites', input.name, id);
      await tx.sql(`UPDATE sites SET name = $2 WHERE id = $1::uuid`, [id, input.name]);
    }
    if (input.time_zone !== undefined) await tx.sql(`UPDATE sites SET time_zone = $2 WHERE id = $1::uuid`, [id, input.time_zone]);
  });
  return getSite(db, id);
}

/** Refused while collectors belong to it (move them first), and for the default site, which new collectors join. */
export async function deleteSite(db: DbSession, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    const found = await getSite(tx, id);
    if (found.is_default) throw new HubError('conflict', 'the default site cannot be deleted: new collectors join it');
    if (found.collector_ids.length > 0) throw new HubError('conflict', `the site still holds ${found.collector_ids.length} collector(s): move them first`);
    await tx.sql(`DELETE FROM sites WHERE id = $1::uuid`, [id]);
  });
}

/** 400 when a given id names no site: a filter or a scope naming one would silently match nothing. */
export async function refuseUnknownSites(db: DbSession, siteIds: readonly string[], field = 'site_ids'): Promise<void> {
  if (siteIds.length === 0) return;
  const [row] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM sites WHERE id IN (SELECT value::uuid FROM json_array_elements_text($1::json))`, [
    JSON.stringify(siteIds),
  ]);
  if (Number(row?.n ?? 0) !== new Set(siteIds).size) throw new HubError('bad_request', `${field}: names a site that does not exist`);
}

export async function listGroups(db: DbSession): Promise<SiteGroupRecord[]> {
  return (await db.sql<GroupRow>(`${GROUP_SELECT} ORDER BY lower(g.name), g.id`)).map(group);
}

export async function getGroup(db: DbSession, id: string): Promise<SiteGroupRecord> {
  const [row] = await db.sql<GroupRow>(`${GROUP_SELECT} WHERE g.id = $1::uuid`, [id]);
  if (!row) throw new HubError('not_found', 'no such site group');
  return group(row);
}

async function setMembers(tx: DbSession, groupId: string, siteIds: readonly string[]): Promise<void> {
  await refuseUnknownSites(tx, siteIds);
  await tx.sql(`DELETE FROM site_group_members WHERE group_id = $1::uuid`, [groupId]);
  if (siteIds.length > 0)
    await tx.sql(
      `INSERT INTO site_group_members (group_id, site_id) SELECT $1::uuid, value::uuid FROM json_array_elements_text($2::json) ON CONFLICT DO NOTHING`,
      [groupId, JSON.stringify([...new Set(siteIds)])],
    );
}

export async function createGroup(db: DbSession, input: { name: string; site_ids: readonly string[] }): Promise<SiteGroupRecord> {
  const id = await db.transaction(async (tx) => {
    await refuseTakenName(tx, 'site_groups', input.name, null);
    const [row] = await tx.sql<{ id: string }>(`INSERT INTO site_groups (name) VALUES ($1) RETURNING id::text AS id`, [input.name]);
    const id = row?.id ?? '';
    await setMembers(tx, id, input.site_ids);
    return id;
  });
  return getGroup(db, id);
}

export async function editGroup(
  db: DbSession,
  id: string,
  input: { name?: string | undefined; site_ids?: readonly string[] | undefined },
): Promise<SiteGroupRecord> {
  await db.transaction(async (tx) => {
    await getGroup(tx, id);
    if (input.name !== undefined) {
      await refuseTakenName(tx, 'site_groups', input.name, id);
      await tx.sql(`UPDATE site_groups SET name = $2 WHERE id = $1::uuid`, [id, input.name]);
    }
    if (input.site_ids !== undefined) await setMembers(tx, id, input.site_ids);
  });
  return getGroup(db, id);
}

export async function deleteGroup(db: DbSession, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await getGroup(tx, id);
    await tx.sql(`DELETE FROM site_groups WHERE id = $1::uuid`, [id]);
  });
}

/** Moves a collector to a site; its past and future reads belong to that site from now on. */
export async function setCollectorSite(
  db: DbSession,
  collectorId: string,
  siteId: string,
): Promise<{ collector_id: string; site_id: string; previous_site_id: string }> {
  return db.transaction(async (tx) => {
    const [row] = await tx.sql<{ site_id: string }>(`SELECT site_id::text AS site_id FROM collectors WHERE id = $1::uuid FOR UPDATE`, [collectorId]);
    if (!row) throw new HubError('not_found', 'no such collector');
    await getSite(tx, siteId).catch(() => {
      throw new HubError('bad_request', 'site_id: no such site');
    });
    await tx.sql(`UPDATE collectors SET site_id = $2::uuid WHERE id = $1::uuid`, [collectorId, siteId]);
    return { collector_id: collectorId, site_id: siteId, previous_site_id: row.site_id };
  });
}
