/** Which PostgreSQL error a driver error is, wherever it sits in the cause chain (postgres.js, PGlite, drizzle wrappers). */

/** PostgreSQL unique violation (23505). */
export function isUniqueViolation(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    if ((current as { code?: unknown }).code === '23505') return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
