/** Lifetimes and limits from docs/auth.md. */
export const PARTIAL_TOKEN_SECONDS = 300;
export const SESSION_SECONDS = 24 * 3600;
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** One step before and one after: tolerates ~30 s of clock drift on the phone. */
export const TOTP_WINDOW_STEPS = 1;
export const BACKUP_CODE_COUNT = 10;
export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_WINDOW_MS = 5 * 60_000;
export const LOCKOUT_DURATION_MS = 15 * 60_000;
/** Shown as `issuer` in the authenticator app. */
export const TOTP_ISSUER = 'ALPR Hub';
/** Where a full session lands (a 302 to the dashboard). */
export const DASHBOARD_PATH = '/';
export const SETUP_PATH = '/auth/2fa/setup';
