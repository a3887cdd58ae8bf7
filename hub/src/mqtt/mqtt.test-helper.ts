/**
 * What the MQTT-out tests stand on: a real database and hub, a watchlist holding the plates
 * they will raise alerts for, the alert worker that raises them after a real batch upload, and
 * a real mosquitto (scripts/simulators/mosquitto.ts), each torn down with the test.
 */
import type { Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { startMosquitto } from '../../../scripts/simulators/mosquitto.ts';
import { someUser } from '../alerts/alerts.test-helper.ts';
import { createAlertWorker } from '../alerts/worker.ts';
import { testDatabase } from '../db/database.test-helper.ts';
import { sampleDetection, startTestHub, uploadBatch } from '../ingest/uploads.test-helper.ts';
import { createLog } from '../platform/log.ts';
import { createWatchlistCache } from '../watchlists/cache.ts';
import { addEntry } from '../watchlists/entries.ts';
import { createWatchlist } from '../watchlists/watchlists.ts';

export async function mqttTestHub(t: Test, listName: string, plates: readonly string[]) {
  const db = await testDatabase(t);
  const hub = await startTestHub({ db });
  t.teardown(() => hub.close());
  const log = createLog(process.env['MQTT_TEST_LOG'] ?? 'silent');
  const ctx = { db, clock: { now: () => new Date() }, log };
  const actor = { userId: await someUser(hub.deps), ip: null, userAgent: null };
  const list = await createWatchlist(ctx, actor, { name: listName, priority: 'high' });
  for (const plate of plates) await addEntry(ctx, actor, list.id, { plate });
  const cache = createWatchlistCache(ctx);
  const worker = createAlertWorker(ctx, cache);

  /**
   * One read per plate from `camera` (the sample's own when unset), `agoMs` before now, through
   * the real batch upload (uploadBatch: a 202 under load, as PGlite often is, counts as
   * stored); then the alert worker runs until its queue is empty. The detections' ids.
   */
  async function raise(plateTexts: readonly string[], options: { camera?: string; agoMs?: number } = {}): Promise<string[]> {
    const capturedAt = Date.now() - (options.agoMs ?? 60_000);
    const camera = options.camera === undefined ? {} : { camera: { id: options.camera, mac: '7cd8b328641b' } };
    const detections = plateTexts.map((text, i) =>
      sampleDetection({ ...camera, plate: { text, confidence: 0.9 }, timestamp: new Date(capturedAt + i).toISOString() }),
    );
    await uploadBatch(
      hub,
      hub.apiKey,
      detections.map((detection) => ({ detection })),
    );
    while ((await worker.runOnce()) > 0) {
      /* drain */
    }
    return detections.map((d) => d.detection_id);
  }

  return { db, hub, log, ctx, actor, list, cache, worker, raise };
}

/** A real mosquitto for one test file (options as startMosquitto takes them). */
export async function mqttTestBroker(t: Test, options?: Parameters<typeof startMosquitto>[0]) {
  const broker = await startMosquitto(options);
  t.teardown(() => broker.close());
  return broker;
}

/** Waits up to a minute for `check`, then fails naming `what`. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 1200; i++) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`never: ${what}`);
}
