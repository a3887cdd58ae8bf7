import type { Database } from 'better-sqlite3';
import { DETECTIONS_DDL } from './schema/detections.ts';
import { IMAGES_DDL } from './schema/images.ts';
import { RECENT_READS_DDL } from './schema/recent-reads.ts';
import { CURSORS_DDL } from './schema/cursors.ts';
import { COUNTERS_DDL } from './schema/counters.ts';
import { REJECTED_DDL } from './schema/rejected.ts';

/**
 * Numbered migrations; `PRAGMA user_version` records how many have run. Append only:
 * a shipped appliance upgrades by running the ones after its version, in order.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: initial schema.
  [DETECTIONS_DDL, IMAGES_DDL, RECENT_READS_DDL, CURSORS_DDL, COUNTERS_DDL, REJECTED_DDL].join('\n'),
];

export function schemaVersion(sqlite: Database): number {
  const version = sqlite.pragma('user_version', { simple: true });
  return typeof version === 'number' ? version : 0;
}

/** Runs pending migrations in one IMMEDIATE transaction, so two openers cannot race. */
export function migrate(sqlite: Database): number {
  const run = sqlite.transaction(() => {
    const from = schemaVersion(sqlite);
    for (let step = from; step < MIGRATIONS.length; step += 1) {
      const ddl = MIGRATIONS[step];
      if (ddl !== undefined) sqlite.exec(ddl);
    }
    if (from < MIGRATIONS.length) sqlite.pragma(`user_version = ${MIGRATIONS.length}`);
    return MIGRATIONS.length;
  });
  return run.immediate();
}
