import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** @hono/node-server's binding (`c.env.incoming`) when the app runs under it; undefined under `app.request()`. */
export function nodeRequestOf(c: Context): IncomingMessage | undefined {
  const env: unknown = c.env;
  if (typeof env !== 'object' || env === null || !('incoming' in env)) return undefined;
  const incoming = (env as { incoming: unknown }).incoming;
  return typeof incoming === 'object' && incoming !== null && 'readableDidRead' in incoming ? (incoming as IncomingMessage) : undefined;
}
