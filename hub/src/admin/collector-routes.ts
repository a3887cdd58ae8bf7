import { Hono } from 'hono';
import type { AuthEnv } from '../auth/middleware.ts';
import type { HubDeps } from '../deps.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { decommission } from '../collectors/decommission.ts';
import { listRecentCommands } from '../collectors/list-commands.ts';
import { issueNewClaimCode } from '../collectors/new-claim-code.ts';
import { issueProvisioningToken } from '../collectors/provisioning.ts';
import { collectorStatus, listCollectors } from '../collectors/status.ts';
import { updateConfig } from '../collectors/update-config.ts';
import { wipeCollector } from '../collectors/wipe.ts';
import { audited } from './audit.ts';
import { pathParam, readJsonBody } from '../http/json-body.ts';
import type { AdminGuards } from './guards.ts';
import { presentCollector } from './present.ts';
import { createCollectorBodySchema, decommissionBodySchema, emptyBodySchema, updateConfigBodySchema } from './schema.ts';

const BASE = '/api/v1/admin/collectors';

/** Collector lifecycle for admins: create, list, read, provision, configure, decommission, wipe. */
export function adminCollectorRoutes(deps: HubDeps, guards: AdminGuards): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const actor = (user: { id: string }) => ({ userId: user.id });

  app.post(
    BASE,
    guards.post,
    audited(deps, 'admin.collector.create', async (c) => {
      const body = await readJsonBody(c, createCollectorBodySchema);
      const created = await createCollector(deps, actor(c.get('user')), {
        siteName: body.site_name,
        ...(body.site_address !== undefined ? { siteAddress: body.site_address } : {}),
        ...(body.gps_latitude !== undefined ? { latitude: body.gps_latitude } : {}),
        ...(body.gps_longitude !== undefined ? { longitude: body.gps_longitude } : {}),
        ...(body.config !== undefined ? { config: body.config } : {}),
      });
      const response = c.json(
        {
          collector_id: created.collectorId,
          status: 'pending',
          claim_code: created.claimCode,
          claim_code_expires_at: created.claimCodeExpiresAt.toISOString(),
        },
        201,
      );
      return { response, targetId: created.collectorId, detail: { site_name: body.site_name } };
    }),
  );

  app.get(
    BASE,
    guards.read,
    audited(deps, 'admin.collector.list', async (c) => {
      const all = await listCollectors(deps);
      return { response: c.json({ data: all.map(presentCollector) }), detail: { count: all.length } };
    }),
  );

  app.get(
    `${BASE}/:id`,
    guards.read,
    audited(deps, 'admin.collector.read', async (c) => {
      return { response: c.json(presentCollector(await collectorStatus(deps, pathParam(c, 'id')))) };
    }),
  );

  // What was sent to the collector and what it answered (docs/admin-api.md): the newest 20.
  app.get(
    `${BASE}/:id/commands`,
    guards.read,
    audited(deps, 'admin.collector.commands', async (c) => {
      const id = pathParam(c, 'id');
      await collectorStatus(deps, id);
      const rows = await listRecentCommands(deps.db, id);
      return {
        response: c.json({ data: rows }),
        detail: { count: rows.length },
      };
    }),
  );

  app.post(
    `${BASE}/:id/provisioning-tokens`,
    guards.post,
    audited(deps, 'admin.collector.provisioning_token', async (c) => {
      await readJsonBody(c, emptyBodySchema);
      const issued = await issueProvisioningToken(deps, actor(c.get('user')), pathParam(c, 'id'));
      const response = c.json({ token_id: issued.tokenId, provisioning_token: issued.token, expires_at: issued.expiresAt.toISOString() }, 201);
      return { response, detail: { token_id: issued.tokenId } };
    }),
  );

  app.post(
    `${BASE}/:id/claim-code`,
    guards.post,
    audited(deps, 'admin.collector.claim_code', async (c) => {
      await readJsonBody(c, emptyBodySchema);
      const issued = await issueNewClaimCode(deps, { userId: c.get('user').id }, pathParam(c, 'id'));
      c.header('Cache-Control', 'no-store');
      const response = c.json(
        { collector_id: issued.collectorId, status: 'pending', claim_code: issued.claimCode, claim_code_expires_at: issued.claimCodeExpiresAt.toISOString() },
        201,
      );
      return { response, detail: { claim_code_expires_at: issued.claimCodeExpiresAt.toISOString() } };
    }),
  );

  app.post(
    `${BASE}/:id/config`,
    guards.post,
    audited(deps, 'admin.collector.config', async (c) => {
      const body = await readJsonBody(c, updateConfigBodySchema);
      const id = pathParam(c, 'id');
      const result = await updateConfig(deps, actor(c.get('user')), id, body.config);
      const response = c.json({ collector_id: id, config_version: result.configVersion, command_id: result.commandId });
      return { response, detail: { config_version: result.configVersion, command_id: result.commandId } };
    }),
  );

  // Decommissioning revokes every key of the collector: a key operation, so fresh 2FA.
  app.post(
    `${BASE}/:id/decommission`,
    guards.keyPost,
    audited(deps, 'admin.collector.decommission', async (c) => {
      const body = await readJsonBody(c, decommissionBodySchema);
      const id = pathParam(c, 'id');
      const result = await decommission(deps, actor(c.get('user')), id, body.reason);
      const response = c.json({ collector_id: id, status: 'decommissioned', revoked_keys: result.revokedKeys });
      return { response, detail: { revoked_keys: result.revokedKeys } };
    }),
  );

  // A wipe erases the collector's credentials: treated as a key operation.
  app.post(
    `${BASE}/:id/wipe`,
    guards.keyPost,
    audited(deps, 'admin.collector.wipe', async (c) => {
      await readJsonBody(c, emptyBodySchema);
      const id = pathParam(c, 'id');
      const result = await wipeCollector(deps, actor(c.get('user')), id);
      // 202: queued; the collector acts on it with its next heartbeat.
      return { response: c.json({ collector_id: id, command_id: result.commandId }, 202), detail: { command_id: result.commandId } };
    }),
  );

  return app;
}
