/**
 * Slow-client bounds for both servers (docs/security.md "Hostile input"). Without them a
 * client sending one byte a second held a hub connection for as long as it liked (60 s
 * measured, no end in sight); a few hundred such clients exhaust file descriptors.
 * - `headersMs`: the request head must be complete within this (Node answers 408).
 * - `requestMs`: head and body together (408, or the socket is closed mid-body).
 * - `keepAliveMs`: an idle keep-alive connection between requests is closed after this.
 */
export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

/**
 * Node checks the header and request bounds on a timer (30 s by default, which would make
 * a 10 s bound anything up to 40 s); 1 s keeps each bound within a second of its value.
 */
const CHECK_EVERY_MS = 1000;

/** Options for `http.createServer` (`serve({ serverOptions })` in @hono/node-server). */
export function serverOptionsFor(t: ServerTimeouts): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    // Node requires headersTimeout <= requestTimeout.
    headersTimeout: Math.min(t.headersMs, t.requestMs),
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    connectionsCheckingInterval: Math.min(CHECK_EVERY_MS, t.headersMs),
  };
}

/*
 * No socket inactivity timeout (`server.setTimeout`): it also fires while the server is
 * still working on an answer (a claim took over 10 s on a loaded machine and was cut off
 * with no response). A client stalling mid-body is cut by `requestMs`, a silent connection
 * by `headersMs`, an idle keep-alive connection by `keepAliveMs`.
 */

/**
 * Client-side bounds for one outbound call (undici `request`): how long to wait for the
 * response head once the body is sent, and the longest silence between response body chunks.
 */
export interface CallTimeouts {
  headersMs: number;
  bodyMs: number;
}
