import type { Server } from 'node:http';
import { errorEnvelope } from '@alpr/shared/http/error-envelope';

type Fetch<A extends unknown[]> = (request: Request, ...rest: A) => Response | Promise<Response>;

export interface Drainable<A extends unknown[]> {
  /** The server's request handler: the app's, or a 503 once draining began. */
  fetch: Fetch<A>;
  /**
   * Stops taking requests and waits until the ones in hand are answered, at most `timeoutMs`
   * (then the connections still open are cut). Resolves when the database may close.
   */
  drain(server: Server, timeoutMs: number): Promise<'drained' | 'timed_out'>;
}

/**
 * A graceful stop for a hub behind a load balancer or restarted in place (docs/operations.md
 * "Upgrade"). Closing the database while the HTTP server still answered made every request
 * that arrived on a kept-alive connection during the stop fail with a 500 (a collector's
 * batch, retried on the same connection, failed again and again). Once draining begins, a new
 * request gets a 503 with `Connection: close` and `Retry-After`, so the client retries on a
 * new connection, which a balancer gives to another hub; requests already in hand finish
 * against an open database; idle kept-alive connections are closed at once.
 */
export function drainable<A extends unknown[]>(inner: Fetch<A>): Drainable<A> {
  let draining = false;
  return {
    fetch: (request, ...rest) => {
      if (!draining) return inner(request, ...rest);
      return new Response(JSON.stringify(errorEnvelope('unavailable', 'the hub is stopping; retry')), {
        status: 503,
        headers: { 'content-type': 'application/json', connection: 'close', 'retry-after': '1' },
      });
    },
    drain(server, timeoutMs) {
      draining = true;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          server.closeAllConnections();
          resolve('timed_out');
        }, timeoutMs);
        timer.unref();
        server.close(() => {
          clearTimeout(timer);
          resolve('drained');
        });
        server.closeIdleConnections();
      });
    },
  };
}
