/**
 * Test helpers for the collector verbs: a clock tests move by hand, a context over a
 * fresh database (db/database.test-helper.ts), captured log lines, and a claimed collector.
 * Not imported by production code.
 */
import { Writable } from 'node:stream';
import type { Clock } from '../platform/clock.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { testDatabase, type TestDatabase, type TestHandle } from '../db/database.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { claim } from './claim.ts';
import { SYSTEM_ACTOR } from '../platform/actor.ts';
import type { CollectorContext } from './context.ts';
import { createCollector } from './create-collector.ts';
import type { EnrollmentResponse } from '@alpr/shared/protocol/collector';

export interface MovableClock extends Clock {
  set(date: Date): void;
  advance(ms: number): void;
}

export function movableClock(start = new Date('2026-01-15T10:00:00.000Z')): MovableClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (date) => {
      current = date.getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface CollectorTestContext extends CollectorContext {
  clock: MovableClock;
  database: TestDatabase;
  /** Every log line written so far, parsed. */
  logLines(): Record<string, unknown>[];
}

export const TEST_PUBLIC_URL = 'https://hub.example.test';

export async function collectorTestContext(t: TestHandle): Promise<CollectorTestContext> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      lines.push(
        ...String(chunk)
          .split('\n')
          .filter((l) => l !== ''),
      );
      callback();
    },
  });
  const log = createLog('info', sink);
  const database = await testDatabase(t);
  return {
    db: database,
    database,
    clock: movableClock(),
    log,
    config: loadHubConfig({ HUB_PUBLIC_URL: TEST_PUBLIC_URL }),
    logLines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

let serial = 0;

/** A collector created and claimed now: its id, its key and the claim answer. */
export async function claimedCollector(
  ctx: CollectorContext,
  options: { config?: Record<string, unknown>; ip?: string; publicKey?: string } = {},
): Promise<{ collectorId: string; apiKey: string; enrollment: EnrollmentResponse; hardwareId: string }> {
  serial += 1;
  const hardwareId = `HW-${process.pid}-${serial}-${Math.random().toString(36).slice(2, 8)}`;
  const created = await createCollector(ctx, SYSTEM_ACTOR, { siteName: `Site ${serial}`, ...(options.config ? { config: options.config } : {}) });
  const enrollment = await claim(
    ctx,
    { claim_code: created.claimCode, hardware_id: hardwareId, ...(options.publicKey ? { public_key: options.publicKey } : {}) },
    options.ip ?? '192.0.2.10',
  );
  return { collectorId: enrollment.collector_id, apiKey: enrollment.api_key, enrollment, hardwareId };
}
