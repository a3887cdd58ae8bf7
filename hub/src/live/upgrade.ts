/**
 * `GET /ws` (docs/live.md "Opening it"): the HTTP upgrade of the hub's own server. The path,
 * the protocol version and the Origin are checked first and refused over HTTP: the Origin,
 * when a browser sends one, must be the hub's own (a page on another site must not ride a
 * user's cookie into a live feed: cross-site WebSocket hijacking). The session cookie is then
 * checked like on every protected route, but a refusal is told over the WebSocket, as an
 * `error` message with AUTH_REQUIRED or AUTH_FAILED and close code 4401: a browser never sees
 * the status of a refused upgrade, only "closed", so this is the one way a page learns it
 * must sign in again.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse as parseCookies } from 'hono/utils/cookie';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AuthContext } from '../auth/context.ts';
import { SESSION_COOKIE } from '../auth/cookies.ts';
import { AuthFailure } from '../auth/failure.ts';
import { authenticateSession } from '../auth/middleware.ts';
import type { LiveBroker } from './broker.ts';
import { CLOSE, envelope, type LiveError } from './protocol.ts';
import { sessionError } from './session-error.ts';
import { errorEnvelope } from '@alpr/shared/http/error-envelope';

export const LIVE_PATH = '/ws';
/** Client frames are small JSON messages; anything bigger is refused by ws (close 1009). */
const MAX_CLIENT_FRAME_BYTES = 4096;

function refuse(socket: Duplex, status: number, reason: string, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n${extra}Connection: close\r\n\r\n${text}`,
  );
}

/** Completes the upgrade only to say why there is no connection: one `error` message, then the close. */
function refuseOverSocket(ws: WebSocket, error: LiveError, now: Date, closeCode: number, closeReason: string): void {
  ws.on('error', () => undefined);
  ws.send(JSON.stringify(envelope('error', { ...error }, now)));
  ws.close(closeCode, closeReason);
}

/** Origins a browser may open the channel from: the hub's public origin and the Host it was reached at. */
function originAllowed(req: IncomingMessage, publicUrl: string): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true; // not a browser (a script or a bot): the cookie is its own
  const allowed = new Set<string>([new URL(publicUrl).origin]);
  const host = req.headers.host;
  if (host) {
    allowed.add(`http://${host}`);
    allowed.add(`https://${host}`);
  }
  return allowed.has(origin);
}

export function attachLiveChannel(server: Server, deps: AuthContext, broker: LiveBroker): { close(): void } {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://hub.invalid');
    if (url.pathname !== LIVE_PATH) {
      refuse(socket, 404, 'Not Found', errorEnvelope('not_found', 'no such route'));
      return;
    }
    const version = url.searchParams.get('v');
    if (version !== null && version !== '1') {
      refuse(socket, 400, 'Bad Request', errorEnvelope('bad_request', `protocol version ${version.slice(0, 10)} is not served; this hub speaks v=1`));
      return;
    }
    if (!originAllowed(req, deps.config.publicUrl)) {
      refuse(socket, 403, 'Forbidden', { detail: 'Origin not allowed' });
      return;
    }
    const token = parseCookies(req.headers.cookie ?? '', SESSION_COOKIE)[SESSION_COOKIE];
    authenticateSession(deps, token === '' ? undefined : token).then(
      (user) => wss.handleUpgrade(req, socket, head, (ws) => broker.accept(ws, user, token as string)),
      (err: unknown) => {
        if (err instanceof AuthFailure) {
          const error = sessionError(err);
          wss.handleUpgrade(req, socket, head, (ws) => refuseOverSocket(ws, error, deps.clock.now(), CLOSE.sessionEnded, 'sign in'));
          return;
        }
        deps.log.error({ err }, 'live channel upgrade failed');
        const error: LiveError = { code: 'INTERNAL_ERROR', message: 'the server could not open the connection; retry later' };
        wss.handleUpgrade(req, socket, head, (ws) => refuseOverSocket(ws, error, deps.clock.now(), CLOSE.internalError, 'internal error'));
      },
    );
  };
  server.on('upgrade', onUpgrade);
  return {
    close() {
      server.off('upgrade', onUpgrade);
      wss.close();
    },
  };
}
