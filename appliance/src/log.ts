import { pino, type DestinationStream, type Logger } from 'pino';

/** Keys, passwords and tokens are redacted wherever they appear; a key is logged by prefix only. */
export const REDACT_PATHS = [
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
  'password',
  '*.password',
  'token',
  '*.token',
  'claim_code',
  '*.claim_code',
  'provisioning_token',
  '*.provisioning_token',
  'secret',
  '*.secret',
  'headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
];

/** Standard output by default (development, `npm start`); the device writes a capped file (log-file.ts). */
export function createLog(level: string, destination?: DestinationStream): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, base: { svc: 'appliance' } };
  return destination ? pino(options, destination) : pino(options);
}
