import { Hono, type Context } from 'hono';
import { parseBody } from '../platform/http/validate.ts';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { claimRequestSchema, commandAckRequestSchema, heartbeatRequestSchema, provisionRequestSchema } from '@alpr/shared/protocol/collector';
import { HubError } from '../platform/errors.ts';
import { errorHandler } from '../platform/http/on-error.ts';
import { CLAIM_PATHS, COMMAND_ACK_ROUTE, HEARTBEAT_PATH, PROVISION_PATHS } from '@alpr/shared/protocol/paths';
import { ackCommand } from './ack-command.ts';
import { requireCollector } from './api-key-auth.ts';
import { claim } from './claim.ts';
import { clientIp } from '../platform/http/client-ip.ts';
import type { CollectorContext } from './context.ts';
import { heartbeat } from './heartbeat.ts';
import { provision } from './provisioning.ts';
import { createTokenBucket, ENROLLMENT_RATE_LIMIT, type RateLimiter } from './rate-limit.ts';

export interface CollectorRouteOptions {
  /** Shared by claim and provision; one per app instance (never a module singleton). */
  enrollmentLimiter?: RateLimiter;
}

/** Heartbeat, ack, claim and provision bodies are a few hundred bytes; 64 KB is generous. */
const MAX_JSON_BYTES = 64 * 1024;

/**
 * Collector-facing endpoints (docs/protocol.md). Thin: validate, call one verb,
 * let the error handler map HubError. Accepts HubDeps (a superset of CollectorContext).
 */
export function collectorRoutes(deps: CollectorContext, options: CollectorRouteOptions = {}): Hono {
  const limiter = options.enrollmentLimiter ?? createTokenBucket(ENROLLMENT_RATE_LIMIT);
  const app = new Hono();
  // The hub's one handler; it renders `reason` where two refusals share a status.
  app.onError(errorHandler(deps.log));
  const limitBody = bodyLimit({
    maxSize: MAX_JSON_BYTES,
    onError: () => {
      throw new HubError('payload_too_large', `request body over ${MAX_JSON_BYTES} bytes`);
    },
  });
  const rateLimited = async (c: Context, next: () => Promise<void>): Promise<void> => {
    const decision = limiter.take(`enroll:${clientIp(c) ?? 'unknown'}`, deps.clock.now());
    const headers = {
      'X-RateLimit-Limit': String(decision.limit),
      'X-RateLimit-Remaining': String(decision.remaining),
      'X-RateLimit-Reset': String(Math.ceil(decision.resetAt.getTime() / 1000)),
    };
    if (!decision.allowed) {
      throw new HubError('rate_limited', 'too many attempts from this address; retry later', {
        ...headers,
        'Retry-After': String(decision.retryAfterSeconds),
      });
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await next();
  };

  for (const path of CLAIM_PATHS) {
    app.post(path, rateLimited, limitBody, async (c) => {
      const body = await readJson(c, claimRequestSchema);
      return c.json(await claim(deps, body, clientIp(c)), 200);
    });
  }
  for (const path of PROVISION_PATHS) {
    app.post(path, rateLimited, limitBody, async (c) => {
      const body = await readJson(c, provisionRequestSchema);
      return c.json(await provision(deps, body, clientIp(c)), 200);
    });
  }
  const authenticated = requireCollector(deps);
  app.post(HEARTBEAT_PATH, authenticated, limitBody, async (c) => {
    const body = await readJson(c, heartbeatRequestSchema);
    return c.json(await heartbeat(deps, c.var.collector.collectorId, body), 200);
  });
  app.post(COMMAND_ACK_ROUTE, authenticated, limitBody, async (c) => {
    const body = await readJson(c, commandAckRequestSchema);
    return c.json(await ackCommand(deps, c.var.collector, c.req.param('id'), body), 200);
  });
  return app;
}

/**
 * JSON body through a zod schema; anything else is a 400 naming the first problem.
 *
 * Not a zValidator (http/validator.ts), on purpose. The body is plain JSON (capped by
 * `bodyLimit` above, nothing decompressed), but the collector wire protocol has always read
 * it whatever its content type, and answers `request body must be JSON` for an empty or
 * malformed body. `validJson` would answer 415 for a missing or other content type and take
 * an empty body as `{}`; a bare zValidator('json') would validate `{}` whenever the type is
 * not JSON. Either changes what deployed appliances are told, so this keeps `parseBody`.
 */
async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  let raw: unknown;
  try {
    raw = await c.req.json();
  } catch {
    throw new HubError('bad_request', 'request body must be JSON');
  }
  return parseBody(schema, raw);
}
