import { ADMIN_CAMERA_ROUTE, adminCollectorPartRoute } from '../platform/http/paths.ts';
import { Hono } from 'hono';
import { z } from 'zod';
import type { PlatformDeps } from '../platform/deps.ts';
import { addCamera, editCamera, removeCamera, type CameraChange } from '../collectors/cameras/change.ts';
import { addCameraBodySchema, editCameraBodySchema } from '../collectors/cameras/input.ts';
import { listCameras, presentCamera } from '../collectors/cameras/list.ts';
import { collectorStatus } from '../collectors/status.ts';
import { idParam, validJson, validParam } from '../platform/http/validator.ts';
import { audited, noteAudit, type AdminEnv } from '../audit/middleware.ts';
import type { AdminGuards } from '../auth/guards.ts';
import { emptyBodySchema } from '../platform/http/validator.ts';

const CAMERAS_ROUTE = adminCollectorPartRoute('cameras');

/**
 * A collector's cameras, managed on the hub (docs/cameras-central.md, docs/admin-api.md
 * "Cameras"). Each change answers with the camera, the new `config_version` and the
 * `config_update` command whose acknowledgment carries the collector's answer per camera
 * (`GET /api/v1/admin/collectors/{id}/commands`). Credentials go in, never out.
 */
export function adminCameraRoutes(deps: PlatformDeps, guards: AdminGuards): Hono<AdminEnv> {
  const app = new Hono<AdminEnv>();
  const actor = (c: { get(key: 'user'): { id: string } }) => ({ userId: c.get('user').id });
  const cameraParam = validParam(z.object({ id: z.string(), cameraId: z.string() }));
  const answer = (change: CameraChange) => ({
    camera: presentCamera(change.camera),
    config_version: change.configVersion,
    command_id: change.commandId,
  });

  app.get(CAMERAS_ROUTE, guards.read, audited(deps, 'admin.camera.list'), idParam, async (c) => {
    const { id } = c.req.valid('param');
    await collectorStatus(deps, id);
    const data = await listCameras(deps.db, id);
    noteAudit(c, { detail: { count: data.length } });
    return c.json({ data });
  });

  app.post(CAMERAS_ROUTE, guards.post, audited(deps, 'admin.camera.add'), idParam, ...validJson(addCameraBodySchema), async (c) => {
    const change = await addCamera(deps, actor(c), c.req.valid('param').id, c.req.valid('json'));
    noteAudit(c, { targetId: change.camera.id, detail: { config_version: change.configVersion, command_id: change.commandId } });
    return c.json(answer(change), 201);
  });

  app.patch(ADMIN_CAMERA_ROUTE, guards.post, audited(deps, 'admin.camera.edit'), cameraParam, ...validJson(editCameraBodySchema), async (c) => {
    const { id, cameraId } = c.req.valid('param');
    const body = c.req.valid('json');
    const change = await editCamera(deps, actor(c), id, cameraId, body);
    noteAudit(c, { detail: { fields: Object.keys(body).filter((k) => k !== 'password' && k !== 'token'), config_version: change.configVersion } });
    return c.json(answer(change));
  });

  app.delete(ADMIN_CAMERA_ROUTE, guards.delete, audited(deps, 'admin.camera.remove'), cameraParam, ...validJson(emptyBodySchema), async (c) => {
    const { id, cameraId } = c.req.valid('param');
    const change = await removeCamera(deps, actor(c), id, cameraId);
    noteAudit(c, { detail: { config_version: change.configVersion } });
    return c.json(answer(change));
  });

  return app;
}
