/**
 * What each vendor_b parsing step answers (packet.ts, json.ts, message.ts): a value, or the
 * reason the bytes were refused. Its own file so that the steps import it without importing
 * each other both ways.
 */
export type Result<T> = { ok: true; value: T } | { ok: false; reason: string };
