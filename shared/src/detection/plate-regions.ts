/**
 * The plate regions whose formats the appliance's reader scores readings against
 * (appliance/src/reader/plate-formats.ts, `REGIONS`; test/integration/plate-regions.test.ts
 * keeps the two the same). An ordinary camera's `region` is one of them; a camera without one
 * is read by plate-likeness alone (docs/ordinary-cameras.md).
 */
export const PLATE_REGIONS = ['us', 'eu', 'br'] as const;
export type PlateRegion = (typeof PLATE_REGIONS)[number];
