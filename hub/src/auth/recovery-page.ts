/**
 * `GET /auth/2fa/recovery` for browsers: the backup-code form, with the CSRF token. Posts
 * to the same path; the partial token rides in the `access_token` cookie.
 */
export function recoveryPage(csrfToken: string): string {
  const token = csrfToken.replace(/[^A-Za-z0-9_-]/g, '');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Use a backup code</title></head>
<body>
<main>
<h1>Use a backup code</h1>
<p>Enter one of the backup codes you saved when you set up two-factor authentication
(for example <code>A1B2-C3D4</code>). Each code works once. Afterwards you will set up
your authenticator again.</p>
<form method="post" action="/auth/2fa/recovery">
<input type="hidden" name="csrf_token" value="${token}">
<label>Backup code <input name="code" autocomplete="one-time-code" required pattern="[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}"></label>
<button type="submit">Continue</button>
</form>
</main>
</body>
</html>
`;
}
