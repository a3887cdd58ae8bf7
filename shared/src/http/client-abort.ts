/**
 * A request whose client went away (or was cut off by the request timeout) while its body
 * was being read: Node reports `aborted` / `ECONNRESET`. Nobody reads the answer and the
 * server did nothing wrong, so both servers log it at info, not as an unhandled error.
 * Takes the Fetch `Request` (hono's `c.req.raw`) so shared/ stays free of a hono dependency.
 */
export function isClientAbort(error: Error, request: Request): boolean {
  const code = (error as { code?: unknown }).code;
  return request.signal?.aborted === true || error.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
