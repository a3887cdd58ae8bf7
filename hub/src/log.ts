import { pino, type Logger } from 'pino';

/**
 * Secret-bearing paths are redacted wherever they appear in a log object. A key is
 * identified in logs by its prefix only (`key_prefix`), never by value.
 */
export const REDACT_PATHS = [
  'api_key', '*.api_key', 'apiKey', '*.apiKey', 'key', '*.key', 'new_key', '*.new_key',
  'password', '*.password', 'token', '*.token', 'provisioning_token', '*.provisioning_token',
  'claim_code', '*.claim_code', 'secret', '*.secret', 'headers["x-api-key"]', 'req.headers["x-api-key"]',
  'headers.authorization', 'req.headers.authorization', 'headers.cookie', 'req.headers.cookie',
];

export type Log = Logger;

export function createLog(level: string, destination?: NodeJS.WritableStream): Log {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { svc: 'hub' } };
  return destination ? pino(options, destination as pino.DestinationStream) : pino(options);
}
