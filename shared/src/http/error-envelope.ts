/**
 * The error body both servers answer with: `{ error: { code, message } }`. Clients (the
 * appliance's hub client, the pages) read `error.code`, so the shape is written once here.
 */
export interface ErrorEnvelope<Code extends string = string> {
  error: { code: Code; message: string };
}

export function errorEnvelope<Code extends string>(code: Code, message: string): ErrorEnvelope<Code> {
  return { error: { code, message } };
}

/** The answer to a client that went away mid-request (see client-abort.ts). */
export const ABORTED_ENVELOPE = errorEnvelope('bad_request', 'request aborted');
/** Anything unexpected: never a bare 500 page, never the error's own text. */
export const INTERNAL_ENVELOPE = errorEnvelope('internal', 'internal server error');
