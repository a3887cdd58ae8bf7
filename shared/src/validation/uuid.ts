/**
 * The UUID shape, written once for every place that checks an id before a database casts it
 * or a page trusts it (hub routes and verbs, the dashboard's scripts, the appliance's signed
 * commands). Free of zod so the dashboard's bundle can take it; `params.ts` has the zod form.
 */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A path, query or CLI id that is not a UUID cannot name a row. */
export function isUuid(text: string): boolean {
  return UUID_PATTERN.test(text);
}
