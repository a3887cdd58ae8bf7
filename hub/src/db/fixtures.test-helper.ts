import { randomUUID } from 'node:crypto';
import { advanceChainHead, nextChainLink } from './chain.ts';
import { chainDetections, type ChainedFields } from './hash-chain.ts';
import { collectors } from './schema/collectors.ts';
import { detectionKeys } from './schema/detection-keys.ts';
import { detectionDirectionSchema, detections } from './schema/detections.ts';
import type { DbSession } from './session.ts';

/** Test data builders. Appending follows the recipe in docs/database.md, as ingest must. */

export async function insertCollector(session: DbSession, siteName = 'Test site'): Promise<string> {
  const [row] = await session.db.insert(collectors).values({ siteName, status: 'active' }).returning({ id: collectors.id });
  if (!row) throw new Error('collector insert returned nothing');
  return row.id;
}

export function sampleDetection(collectorId: string, overrides: Partial<ChainedFields> = {}): ChainedFields {
  return {
    collectorId,
    detectionId: randomUUID(),
    cameraId: 'cam-1',
    plateNumber: 'ABC123',
    plateNormalized: 'ABC123',
    confidence: 0.91,
    capturedAt: new Date(),
    direction: 'entering',
    fullImageHash: null,
    cropImageHash: null,
    ...overrides,
  };
}

export interface AppendOptions {
  /** Sleep between taking the chain link and writing, to widen any race window (seconds). */
  pauseSeconds?: number;
}

/**
 * Appends rows to their collector's chain in one transaction: claim the idempotency keys,
 * chain only the rows that are new, insert them, advance the head. Returns the new ids.
 */
export async function appendChainedDetections(
  session: DbSession,
  collectorId: string,
  rows: readonly ChainedFields[],
  options: AppendOptions = {},
): Promise<string[]> {
  return session.transaction(async (tx) => {
    const link = await nextChainLink(tx, collectorId);
    if (options.pauseSeconds) await tx.sql('SELECT pg_sleep($1)', [options.pauseSeconds]);
    const fresh: { row: ChainedFields; id: string }[] = [];
    for (const row of rows) {
      const [idRow] = await tx.sql<{ id: string }>(`SELECT nextval('detections_id_seq') AS id`);
      if (!idRow) throw new Error('nextval returned nothing');
      const claimed = await tx.db
        .insert(detectionKeys)
        .values({ collectorId, detectionId: row.detectionId, detectionPk: idRow.id, capturedAt: row.capturedAt })
        .onConflictDoNothing()
        .returning({ pk: detectionKeys.detectionPk });
      if (claimed.length === 1) fresh.push({ row, id: idRow.id });
    }
    if (fresh.length === 0) return [];
    const { records, next } = chainDetections(
      link,
      fresh.map((f) => f.row),
    );
    await tx.db.insert(detections).values(
      fresh.map(({ row, id }, i) => {
        const record = records[i];
        if (!record) throw new Error('chain record missing');
        return {
          id,
          ...row,
          direction: detectionDirectionSchema.parse(row.direction),
          chainSeq: String(record.chainSeq),
          prevHash: record.prevHash,
          recordHash: record.recordHash,
        };
      }),
    );
    await advanceChainHead(tx, next);
    return fresh.map((f) => f.id);
  });
}
