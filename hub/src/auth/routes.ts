import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { z } from 'zod';
import { errorHandler } from '../platform/http/on-error.ts';
import { DASHBOARD_PATH, PARTIAL_TOKEN_SECONDS, SETUP_PATH } from './constants.ts';
import type { AuthContext } from './context.ts';
import { clearSessionCookie, sessionCookie, setSessionCookie } from './cookies.ts';
import { csrfSatisfied, issueCsrfToken } from './csrf.ts';
import { confirmBackupCodesSaved, startSetup, verifySetup } from './enrollment.ts';
import { AuthFailure, DETAIL } from './failure.ts';
import { login } from './login.ts';
import { logout } from './logout.ts';
import { changePassword } from './change-password.ts';
import { failureResponse, requireUser, type AuthEnv } from './middleware.ts';
import { qrPngDataUri } from './qr.ts';
import { RATE_LIMITS, rateLimit } from './rate-limit.ts';
import { recoverWithBackupCode } from './recovery.ts';
import { emailSchema, passwordSchema, register, requestPasswordReset, REGISTER_ACCEPTED, RESET_ACCEPTED } from './registration.ts';
import { readBody, requestMeta } from './request.ts';
import { reverify } from './reverify.ts';
import { recoveryPage } from './recovery-page.ts';
import { verifyLoginCode } from './second-factor.ts';
import { tokenUser } from './token-user.ts';

/** Auth bodies are a few fields; 16 KB is plenty and caps Argon2 input abuse early. */
const MAX_BODY_BYTES = 16 * 1024;

const loginSchema = z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(1024) });
const changePasswordSchema = z.object({
  current_password: z.string().min(1).max(1024),
  new_password: z.string().min(1).max(1024),
  code: z.string().trim().min(1).max(32),
});
const codeSchema = z.object({ code: z.string().trim().min(1).max(32), partial_token: z.string().max(2048).optional() });

/**
 * `/auth/*` (docs/auth.md). Every POST takes JSON or an HTML
 * form with the same field names (docs/auth.md); form posts need the CSRF token.
 */
export function authRoutes(deps: AuthContext): Hono<AuthEnv> {
  const app = new Hono<AuthEnv>();
  const fallback = errorHandler(deps.log);
  app.onError((err, c) => (err instanceof AuthFailure ? failureResponse(c, err) : fallback(err, c)));

  const limitBody = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ detail: 'Request body too large' }, 413) });
  const csrf = async (c: Context<AuthEnv>, next: () => Promise<void>) => {
    if (!(await csrfSatisfied(c))) throw new AuthFailure(403, DETAIL.csrf);
    await next();
  };
  const fullSession = requireUser(deps);
  // Routes that are part of signing in let an account whose password change is still due through.
  const passwordChange = requireUser(deps, { allowPendingPasswordChange: true });

  app.get('/auth/csrf', (c) => c.json({ csrf_token: issueCsrfToken(c, deps.config) }));

  app.post('/auth/login', rateLimit(deps, RATE_LIMITS.login), limitBody, csrf, async (c) => {
    const body = await readBody(c, loginSchema);
    const result = await login(deps, body, requestMeta(c));
    setSessionCookie(c, deps.config, result.partialToken, 'partial');
    if (result.next === 'setup') return c.redirect(SETUP_PATH, 302);
    return c.json({ requires_2fa: true, partial_token: result.partialToken, expires_in: PARTIAL_TOKEN_SECONDS });
  });

  app.post('/auth/2fa/verify', limitBody, csrf, async (c) => {
    const body = await readBody(c, codeSchema);
    const user = await tokenUser(deps, body.partial_token ?? sessionCookie(c), ['partial']);
    const { sessionToken } = await verifyLoginCode(deps, user, body.code, requestMeta(c));
    setSessionCookie(c, deps.config, sessionToken, 'access');
    return c.redirect(DASHBOARD_PATH, 302);
  });

  app.get('/auth/2fa/setup', async (c) => {
    const user = await tokenUser(deps, sessionCookie(c), ['partial', 'access']);
    const material = await startSetup(deps, user);
    return c.json({
      qr_code_uri: await qrPngDataUri(material.otpauthUri),
      manual_entry_key: material.secret,
      issuer: material.issuer,
      account_name: material.accountName,
    });
  });

  app.post('/auth/2fa/setup/verify', limitBody, csrf, async (c) => {
    const body = await readBody(c, codeSchema);
    const user = await tokenUser(deps, body.partial_token ?? sessionCookie(c), ['partial', 'access']);
    const result = await verifySetup(deps, user, body.code, requestMeta(c));
    setSessionCookie(c, deps.config, result.sessionToken, 'access');
    return c.json({ codes: result.codes, warning: result.warning });
  });

  // Part of signing in, so an account whose password change is still due confirms too (the
  // change comes next); refused, the sign-in page showed a 403 on the way.
  app.post('/auth/2fa/setup/confirm', limitBody, csrf, passwordChange, async (c) => {
    await confirmBackupCodesSaved(deps, c.get('user').id, requestMeta(c));
    return c.redirect(DASHBOARD_PATH, 302);
  });

  app.get('/auth/2fa/recovery', (c) => {
    const csrfToken = issueCsrfToken(c, deps.config);
    if ((c.req.header('accept') ?? '').includes('application/json')) {
      return c.json({ fields: ['code', 'partial_token', 'csrf_token'], csrf_token: csrfToken });
    }
    return c.html(recoveryPage(csrfToken));
  });

  app.post('/auth/2fa/recovery', limitBody, csrf, async (c) => {
    const body = await readBody(c, codeSchema);
    const user = await tokenUser(deps, body.partial_token ?? sessionCookie(c), ['partial', 'access']);
    const { partialToken } = await recoverWithBackupCode(deps, user, body.code, requestMeta(c));
    setSessionCookie(c, deps.config, partialToken, 'partial');
    return c.redirect(SETUP_PATH, 302);
  });

  app.post('/auth/2fa/reverify', limitBody, csrf, fullSession, async (c) => {
    const body = await readBody(c, codeSchema);
    const { sessionToken } = await reverify(deps, c.get('user').id, body.code, requestMeta(c), c.get('user').sessionId);
    setSessionCookie(c, deps.config, sessionToken, 'access');
    return c.body(null, 204);
  });

  // "Who am I" answers an account that must still choose its password too, and says so: the
  // sign-in page asks it after the second factor, and a 403 there was a console error.
  app.get('/auth/me', passwordChange, (c) => {
    const user = c.get('user');
    return c.json({
      id: user.id,
      email: user.email,
      role: user.role,
      second_factor_at: user.secondFactorAt.toISOString(),
      must_change_password: user.mustChangePassword === true,
    });
  });

  // Ends the session on the server too (docs/auth.md "Sessions"): a copied cookie is dead.
  app.post('/auth/logout', limitBody, csrf, async (c) => {
    await logout(deps, sessionCookie(c), requestMeta(c));
    clearSessionCookie(c, deps.config);
    return c.body(null, 204);
  });

  app.post('/auth/password', limitBody, csrf, passwordChange, async (c) => {
    const body = await readBody(c, changePasswordSchema);
    const { sessionToken } = await changePassword(
      deps,
      c.get('user').id,
      {
        currentPassword: body.current_password,
        newPassword: body.new_password,
        code: body.code,
      },
      requestMeta(c),
    );
    setSessionCookie(c, deps.config, sessionToken, 'access');
    return c.body(null, 204);
  });

  app.post('/auth/register', rateLimit(deps, RATE_LIMITS.register), limitBody, csrf, async (c) => {
    const body = await readBody(c, z.object({ email: emailSchema, password: passwordSchema }));
    await register(deps, body, requestMeta(c));
    return c.json({ detail: REGISTER_ACCEPTED }, 202);
  });

  app.post('/auth/forgot-password', rateLimit(deps, RATE_LIMITS.forgotPassword), limitBody, csrf, async (c) => {
    const body = await readBody(c, z.object({ email: emailSchema }));
    await requestPasswordReset(deps, body, requestMeta(c));
    return c.json({ detail: RESET_ACCEPTED }, 202);
  });

  return app;
}
