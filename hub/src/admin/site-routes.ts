import {
  ADMIN_SITE_GROUPS_PATH,
  ADMIN_SITE_GROUP_ROUTE,
  ADMIN_SITES_PATH,
  ADMIN_SITE_ROUTE,
  adminCollectorPartRoute,
  adminUserActionRoute,
} from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import { safeText } from '@alpr/shared/text/hostile-text';
import type { PlatformDeps } from '../platform/deps.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import { emptyBodySchema, validJson, validParam } from '../platform/http/validator.ts';
import type { AdminGuards } from '../auth/guards.ts';
import {
  createGroup,
  createSite,
  deleteGroup,
  deleteSite,
  editGroup,
  editSite,
  getGroup,
  getSite,
  listGroups,
  listSites,
  setCollectorSite,
} from '../sites/manage.ts';
import { setUserSites, userSites } from '../sites/user-sites.ts';
import { anyUuid } from '../platform/any-uuid.ts';

/** Ids are uuids of any version (platform/any-uuid.ts): the default site's is version 0. */
const uuidParam = validParam(z.object({ id: anyUuid('must be an id (uuid)') }));
const name = safeText(z.string().trim().min(1).max(100));
const timeZone = z.string().max(64).nullable();
/** 1,000 sites in one list is far past any hub; the cap keeps a hostile body small. */
const idList = z.array(anyUuid('must be an id (uuid)')).max(1000);

const createSiteSchema = z.object({ name, time_zone: timeZone.optional() }).strict();
const editSiteSchema = z
  .object({ name: name.optional(), time_zone: timeZone.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.time_zone !== undefined, { message: 'nothing to change: give name or time_zone' });
const createGroupSchema = z.object({ name, site_ids: idList.default([]) }).strict();
const editGroupSchema = z
  .object({ name: name.optional(), site_ids: idList.optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.site_ids !== undefined, { message: 'nothing to change: give name or site_ids' });
const collectorSiteSchema = z.object({ site_id: anyUuid('must be a site id (uuid)') }).strict();
const userSitesSchema = z.object({ all_sites: z.boolean(), site_ids: idList.default([]), group_ids: idList.default([]) }).strict();

/**
 * Sites and site groups (docs/sites.md, docs/admin-api.md "Sites"): admins create and group
 * sites, move collectors between them, and give each user their sites. Audited like every
 * admin route; a user's new sites hold from their next request.
 */
export function adminSiteRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const db = deps.db;

  app.get(ADMIN_SITES_PATH, guards.read, audited(deps, 'admin.site.list'), async (c) => {
    const data = await listSites(db);
    noteAudit(c, { detail: { count: data.length } });
    return c.json({ data });
  });
  app.post(ADMIN_SITES_PATH, guards.post, audited(deps, 'admin.site.create'), ...validJson(createSiteSchema), async (c) => {
    const created = await createSite(db, c.req.valid('json'));
    noteAudit(c, { targetId: created.id, detail: { name: created.name, time_zone: created.time_zone } });
    return c.json(created, 201);
  });
  app.get(ADMIN_SITE_ROUTE, guards.read, audited(deps, 'admin.site.read'), uuidParam, async (c) => c.json(await getSite(db, c.req.valid('param').id)));
  app.patch(ADMIN_SITE_ROUTE, guards.post, audited(deps, 'admin.site.edit'), uuidParam, ...validJson(editSiteSchema), async (c) => {
    const body = c.req.valid('json');
    const edited = await editSite(db, c.req.valid('param').id, body);
    noteAudit(c, { detail: { ...body } });
    return c.json(edited);
  });
  app.delete(ADMIN_SITE_ROUTE, guards.delete, audited(deps, 'admin.site.remove'), uuidParam, ...validJson(emptyBodySchema), async (c) => {
    await deleteSite(db, c.req.valid('param').id);
    return c.body(null, 204);
  });

  app.get(ADMIN_SITE_GROUPS_PATH, guards.read, audited(deps, 'admin.site_group.list'), async (c) => {
    const data = await listGroups(db);
    noteAudit(c, { detail: { count: data.length } });
    return c.json({ data });
  });
  app.post(ADMIN_SITE_GROUPS_PATH, guards.post, audited(deps, 'admin.site_group.create'), ...validJson(createGroupSchema), async (c) => {
    const created = await createGroup(db, c.req.valid('json'));
    noteAudit(c, { targetId: created.id, detail: { name: created.name, site_ids: created.site_ids } });
    return c.json(created, 201);
  });
  app.get(ADMIN_SITE_GROUP_ROUTE, guards.read, audited(deps, 'admin.site_group.read'), uuidParam, async (c) =>
    c.json(await getGroup(db, c.req.valid('param').id)),
  );
  app.patch(ADMIN_SITE_GROUP_ROUTE, guards.post, audited(deps, 'admin.site_group.edit'), uuidParam, ...validJson(editGroupSchema), async (c) => {
    const body = c.req.valid('json');
    const edited = await editGroup(db, c.req.valid('param').id, body);
    noteAudit(c, { detail: { ...body } });
    return c.json(edited);
  });
  app.delete(ADMIN_SITE_GROUP_ROUTE, guards.delete, audited(deps, 'admin.site_group.remove'), uuidParam, ...validJson(emptyBodySchema), async (c) => {
    await deleteGroup(db, c.req.valid('param').id);
    return c.body(null, 204);
  });

  app.post(adminCollectorPartRoute('site'), guards.post, audited(deps, 'admin.collector.site'), uuidParam, ...validJson(collectorSiteSchema), async (c) => {
    const moved = await setCollectorSite(db, c.req.valid('param').id, c.req.valid('json').site_id);
    noteAudit(c, { detail: { site_id: moved.site_id, previous_site_id: moved.previous_site_id } });
    return c.json(moved);
  });

  app.get(adminUserActionRoute('sites'), guards.read, audited(deps, 'admin.user.sites_read'), uuidParam, async (c) =>
    c.json(await userSites(db, c.req.valid('param').id)),
  );
  app.post(adminUserActionRoute('sites'), guards.post, audited(deps, 'admin.user.sites'), uuidParam, ...validJson(userSitesSchema), async (c) => {
    const body = c.req.valid('json');
    const set = await setUserSites(db, c.req.valid('param').id, body);
    noteAudit(c, { detail: { all_sites: set.all_sites, site_ids: set.site_ids, group_ids: set.group_ids } });
    return c.json(set);
  });
  return app;
}
