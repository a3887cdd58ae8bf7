import { customType, timestamp } from 'drizzle-orm/pg-core';

/**
 * bigint columns come back as decimal strings on both drivers. postgres.js returns int8 as
 * a string and PGlite as a lossy JS number unless told otherwise; ids are shown as strings
 * on the wire anyway ("the live feed and search show it as a string").
 */
export const bigintString = customType<{ data: string; driverData: string | number | bigint }>({
  dataType() {
    return 'bigint';
  },
  fromDriver(value) {
    return String(value);
  },
});

/** bytea as a Node Buffer on both drivers (postgres.js gives Buffer, PGlite Uint8Array). */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType() {
    return 'bytea';
  },
  fromDriver(value) {
    return Buffer.isBuffer(value) ? value : Buffer.from(value);
  },
});

/** All times are stored UTC as timestamptz and surface as Date. */
export function timestamptz(name: string) {
  return timestamp(name, { withTimezone: true, mode: 'date' });
}
