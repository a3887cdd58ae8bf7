/**
 * A refusal whose body the auth contract fixes (docs/auth.md): `{ "detail": ... }` plus headers.
 * Auth verbs throw it; auth routes and middleware turn it into the response (not the HubError body,
 * because docs/auth.md prescribes `detail` for these endpoints).
 */
export class AuthFailure extends Error {
  readonly status: 400 | 401 | 403 | 409 | 429;
  readonly headers: Readonly<Record<string, string>>;
  readonly extra: Readonly<Record<string, unknown>>;
  constructor(status: 400 | 401 | 403 | 409 | 429, detail: string, options: { headers?: Record<string, string>; extra?: Record<string, unknown> } = {}) {
    super(detail);
    this.name = 'AuthFailure';
    this.status = status;
    this.headers = options.headers ?? {};
    this.extra = options.extra ?? {};
  }
}

/** Exact texts from docs/auth.md, plus our own. */
export const DETAIL = {
  notAuthenticated: 'Not authenticated',
  twoFactorRequired: '2FA verification required',
  invalidToken: 'Invalid token',
  userNotFound: 'User not found or inactive',
  enrollmentRequired: '2FA enrollment required',
  insufficientPermissions: 'Insufficient permissions',
  freshTwoFactorRequired: 'Recent 2FA verification required',
  invalidCredentials: 'Invalid email or password',
  invalidCode: 'Invalid verification code',
  invalidBackupCode: 'Invalid backup code',
  alreadyEnrolled: '2FA already enrolled',
  notEnrolled: '2FA not enrolled',
  noPendingSetup: 'No pending 2FA setup; request /auth/2fa/setup first',
  csrf: 'CSRF token missing or invalid',
  rateLimited: 'Rate limit exceeded',
  sessionEnded: 'Session ended',
  passwordChangeRequired: 'Password change required',
  wrongCurrentPassword: 'Current password is wrong',
  tooManyLoginFailures: 'Too many failed logins for this account; retry later',
} as const;
