/**
 * The webhook delivery worker alone in a process, for the SIGKILL test (sigkill.test.ts):
 * DATABASE_URL names the test's database; WEBHOOK_LOCK_TIMEOUT_MS how soon a dead worker's
 * claims are taken back. Prints "ready" once it listens. Not imported by production code.
 */
import { openDatabase } from '../db/client.ts';
import { systemClock } from '../platform/clock.ts';
import { loadHubConfig } from '../platform/config/hub-config.ts';
import { createLog } from '../platform/log.ts';
import { startWebhooks } from './run.ts';

const url = process.env['DATABASE_URL'];
if (!url) throw new Error('DATABASE_URL required');
const log = createLog('silent');
const db = await openDatabase({ url, log, maxConnections: 2 });
// The test hub's config: its hub secret (the same data directory) opens the sealed secrets.
const config = loadHubConfig({ HUB_LOG_LEVEL: 'silent' });
await startWebhooks({ db, clock: systemClock, log, config }, { lockTimeoutMs: Number(process.env['WEBHOOK_LOCK_TIMEOUT_MS'] ?? 2000), pollMs: 200 });
process.stdout.write('ready\n');
