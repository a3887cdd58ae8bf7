/**
 * Why a session cannot hold a live connection, in the channel's error codes (docs/live.md
 * "Errors"). The session checks themselves are the HTTP ones (auth/middleware.ts); this only
 * translates their refusal, so the channel and the API refuse the same sessions.
 */
import { DETAIL, type AuthFailure } from '../auth/failure.ts';
import type { LiveError, LiveErrorReason } from './protocol.ts';

const AUTH_FAILED_REASONS: ReadonlyMap<string, LiveErrorReason<'AUTH_FAILED'>> = new Map([
  [DETAIL.invalidToken, 'invalid_token'],
  [DETAIL.userNotFound, 'user_inactive'],
  [DETAIL.sessionEnded, 'session_ended'],
  [DETAIL.twoFactorRequired, '2fa_required'],
  [DETAIL.enrollmentRequired, '2fa_enrollment_required'],
  [DETAIL.passwordChangeRequired, 'password_change_required'],
]);

/**
 * No cookie at all is AUTH_REQUIRED; every other refusal of the session is AUTH_FAILED. The
 * message is the API's own `detail` text. A refusal this table does not know (a check added to
 * the middleware later) is still AUTH_FAILED, as `invalid_token`: the session cannot be used.
 */
export function sessionError(failure: AuthFailure): LiveError {
  if (failure.message === DETAIL.notAuthenticated) return { code: 'AUTH_REQUIRED', message: failure.message };
  return { code: 'AUTH_FAILED', reason: AUTH_FAILED_REASONS.get(failure.message) ?? 'invalid_token', message: failure.message };
}
