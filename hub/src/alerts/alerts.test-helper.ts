/**
 * Test helpers for the alert worker: a real hub (startTestHub: HTTP batch upload into a
 * fresh database) whose detections go through the real ingest transaction, so the queue
 * items are the ones production writes. Not imported by production code.
 */
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../auth/context.ts';
import { createUser } from '../auth/registration.ts';
import { sampleDetection, uploadBatch } from '../ingest/uploads.test-helper.ts';
import type { TestHub } from '../ingest/uploads.test-helper.ts';
import type { WatchlistActor, WatchlistContext } from '../watchlists/context.ts';
import { importEntries } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';

/** Uploads one batch of plates through POST /api/v1/detections/batch; returns the detection ids. */
export async function uploadPlates(hub: TestHub, plates: readonly string[], capturedAt = new Date(Date.now() - 60_000)): Promise<string[]> {
  const detections = plates.map((text, i) =>
    sampleDetection({ plate: { text, confidence: 0.9 }, timestamp: new Date(capturedAt.getTime() + i).toISOString() }),
  );
  await uploadBatch(
    hub,
    hub.apiKey,
    detections.map((detection) => ({ detection })),
  );
  return detections.map((d) => d.detection_id);
}

export async function someUser(deps: AuthContext): Promise<string> {
  const user = await createUser(deps, { email: `alerts-${randomUUID()}@example.test`, password: 'correct horse battery staple', role: 'operator' });
  if (!user) throw new Error('user exists');
  return user.id;
}

/**
 * The fault tests' two overlapping watchlists: "Faults A" holds every plate of `watched`,
 * "Faults B" its first ten, so a third of the plates is on both.
 */
export async function twoOverlappingWatchlists(
  ctx: WatchlistContext,
  actor: WatchlistActor,
  watched: readonly string[],
): Promise<{ listA: { id: string }; listB: { id: string } }> {
  const listA = await createWatchlist(ctx, actor, { name: 'Faults A' });
  const listB = await createWatchlist(ctx, actor, { name: 'Faults B' });
  await importEntries(ctx, actor, listA.id, `plate\n${watched.join('\n')}\n`);
  await importEntries(ctx, actor, listB.id, `plate\n${watched.slice(0, 10).join('\n')}\n`);
  return { listA, listB };
}
