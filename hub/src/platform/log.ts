import { pino, type Logger } from 'pino';

/**
 * Secret-bearing paths are redacted wherever they appear in a log object. A key is
 * identified in logs by its prefix only (`key_prefix`), never by value.
 */
export const REDACT_PATHS = [
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'new_key',
  '*.new_key',
  'password',
  '*.password',
  'token',
  '*.token',
  'provisioning_token',
  '*.provisioning_token',
  'claim_code',
  '*.claim_code',
  'secret',
  '*.secret',
  'headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'req.headers.authorization',
  'headers.cookie',
  'req.headers.cookie',
];

export type Log = Logger;

/**
 * Query parameters never reach a log line: drizzle's `DrizzleQueryError` writes every bound
 * value into its message and stack ("params: <claim code>,...") and keeps them in
 * `params`; postgres.js errors carry `parameters`/`args`. The SQL text stays (it names the
 * failing statement and holds no values: every value is a bound parameter).
 */
const PARAMS_IN_TEXT = /\nparams: [\s\S]*?(?=\n\s+at |$)/;
const PARAM_FIELDS = ['params', 'parameters', 'args'];

export function redactQueryParameters(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null || depth > 5) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const field of ['message', 'stack']) {
    const text = out[field];
    if (typeof text === 'string') out[field] = text.replace(PARAMS_IN_TEXT, '\nparams: [redacted]');
  }
  for (const field of PARAM_FIELDS) if (field in out) out[field] = '[redacted]';
  if ('cause' in out) out['cause'] = redactQueryParameters(out['cause'], depth + 1);
  return out;
}

const errSerializer = (err: unknown): unknown => redactQueryParameters(pino.stdSerializers.err(err as Error));

export function createLog(level: string, destination?: NodeJS.WritableStream): Log {
  const options = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { svc: 'hub' },
    serializers: { err: errSerializer, error: errSerializer },
  };
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}
