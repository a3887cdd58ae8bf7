import { ADMIN_COLLECTORS_PATH, ADMIN_COLLECTOR_ROUTE, adminCollectorPartRoute } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import type { PlatformDeps } from '../platform/deps.ts';
import { createCollector } from '../collectors/create-collector.ts';
import { decommission } from '../collectors/decommission.ts';
import { listRecentCommands } from '../collectors/list-commands.ts';
import { issueNewClaimCode } from '../collectors/new-claim-code.ts';
import { issueProvisioningToken } from '../collectors/provisioning.ts';
import { collectorStatus, listCollectors } from '../collectors/status.ts';
import { updateConfig } from '../collectors/update-config.ts';
import { wipeCollector } from '../collectors/wipe.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import { idParam, validJson } from '../platform/http/validator.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { hubCertificateSha256, presentCollector } from './present.ts';
import { emptyBodySchema } from '../platform/http/validator.ts';
import { createCollectorBodySchema, decommissionBodySchema, updateConfigBodySchema } from './schema.ts';

/** Collector lifecycle for admins: create, list, read, provision, configure, decommission, wipe. */
export function adminCollectorRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const actor = (user: { id: string }) => ({ userId: user.id });

  app.post(ADMIN_COLLECTORS_PATH, guards.post, audited(deps, 'admin.collector.create'), ...validJson(createCollectorBodySchema), async (c) => {
    const body = c.req.valid('json');
    const created = await createCollector(deps, actor(c.get('user')), {
      siteName: body.site_name,
      ...(body.site_address !== undefined ? { siteAddress: body.site_address } : {}),
      ...(body.gps_latitude !== undefined ? { latitude: body.gps_latitude } : {}),
      ...(body.gps_longitude !== undefined ? { longitude: body.gps_longitude } : {}),
      ...(body.config !== undefined ? { config: body.config } : {}),
    });
    noteAudit(c, { targetId: created.collectorId, detail: { site_name: body.site_name } });
    return c.json(
      {
        collector_id: created.collectorId,
        status: 'pending',
        claim_code: created.claimCode,
        claim_code_expires_at: created.claimCodeExpiresAt.toISOString(),
        hub_certificate_sha256: hubCertificateSha256(deps),
      },
      201,
    );
  });

  app.get(ADMIN_COLLECTORS_PATH, guards.read, audited(deps, 'admin.collector.list'), async (c) => {
    const all = await listCollectors(deps);
    noteAudit(c, { detail: { count: all.length } });
    return c.json({ data: all.map(presentCollector) });
  });

  app.get(ADMIN_COLLECTOR_ROUTE, guards.read, audited(deps, 'admin.collector.read'), idParam, async (c) => {
    return c.json(presentCollector(await collectorStatus(deps, c.req.valid('param').id)));
  });

  // What was sent to the collector and what it answered (docs/admin-api.md): the newest 20.
  app.get(adminCollectorPartRoute('commands'), guards.read, audited(deps, 'admin.collector.commands'), idParam, async (c) => {
    const { id } = c.req.valid('param');
    await collectorStatus(deps, id);
    const rows = await listRecentCommands(deps.db, id);
    noteAudit(c, { detail: { count: rows.length } });
    return c.json({ data: rows });
  });

  app.post(
    adminCollectorPartRoute('provisioning-tokens'),
    guards.post,
    audited(deps, 'admin.collector.provisioning_token'),
    idParam,
    ...validJson(emptyBodySchema),
    async (c) => {
      const issued = await issueProvisioningToken(deps, actor(c.get('user')), c.req.valid('param').id);
      noteAudit(c, { detail: { token_id: issued.tokenId } });
      return c.json({ token_id: issued.tokenId, provisioning_token: issued.token, expires_at: issued.expiresAt.toISOString() }, 201);
    },
  );

  app.post(
    adminCollectorPartRoute('claim-code'),
    guards.post,
    audited(deps, 'admin.collector.claim_code'),
    idParam,
    ...validJson(emptyBodySchema),
    async (c) => {
      const issued = await issueNewClaimCode(deps, actor(c.get('user')), c.req.valid('param').id);
      c.header('Cache-Control', 'no-store');
      noteAudit(c, { detail: { claim_code_expires_at: issued.claimCodeExpiresAt.toISOString() } });
      return c.json(
        {
          collector_id: issued.collectorId,
          status: 'pending',
          claim_code: issued.claimCode,
          claim_code_expires_at: issued.claimCodeExpiresAt.toISOString(),
          hub_certificate_sha256: hubCertificateSha256(deps),
        },
        201,
      );
    },
  );

  app.post(
    adminCollectorPartRoute('config'),
    guards.post,
    audited(deps, 'admin.collector.config'),
    idParam,
    ...validJson(updateConfigBodySchema),
    async (c) => {
      const { id } = c.req.valid('param');
      const result = await updateConfig(deps, actor(c.get('user')), id, c.req.valid('json').config);
      noteAudit(c, { detail: { config_version: result.configVersion, command_id: result.commandId } });
      return c.json({ collector_id: id, config_version: result.configVersion, command_id: result.commandId });
    },
  );

  // Decommissioning revokes every key of the collector: a key operation, so fresh 2FA.
  app.post(
    adminCollectorPartRoute('decommission'),
    guards.keyPost,
    audited(deps, 'admin.collector.decommission'),
    idParam,
    ...validJson(decommissionBodySchema),
    async (c) => {
      const { id } = c.req.valid('param');
      const result = await decommission(deps, actor(c.get('user')), id, c.req.valid('json').reason);
      noteAudit(c, { detail: { revoked_keys: result.revokedKeys } });
      return c.json({ collector_id: id, status: 'decommissioned', revoked_keys: result.revokedKeys });
    },
  );

  // A wipe erases the collector's credentials: treated as a key operation.
  app.post(adminCollectorPartRoute('wipe'), guards.keyPost, audited(deps, 'admin.collector.wipe'), idParam, ...validJson(emptyBodySchema), async (c) => {
    const { id } = c.req.valid('param');
    const result = await wipeCollector(deps, actor(c.get('user')), id);
    noteAudit(c, { detail: { command_id: result.commandId } });
    // 202: queued; the collector acts on it with its next heartbeat.
    return c.json({ collector_id: id, command_id: result.commandId }, 202);
  });

  return app;
}
