import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { startApplianceProcess, type RunningProcess } from '../../scripts/demo/processes.ts';
import { freePort, traced } from './hub-under-test.ts';
import { applianceBundle } from './appliance-bundle.ts';
import { STATUS_PATH } from '../../appliance/src/http/local-paths.ts';

export interface ApplianceUnderTest {
  url: string;
  dataDir: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  kill(): Promise<void>;
  running(): boolean;
  /** Buffered rows (pending + in flight) from the diagnostics JSON. */
  buffered(): Promise<number>;
  /** Camera runner states from the diagnostics JSON (id -> CONNECTING / ONLINE / OFFLINE). */
  cameraStates(): Promise<Record<string, string>>;
  /**
   * The ids among `detectionIds` that the appliance's buffer has not seen yet (its id
   * memory, `recent_reads`, read from the SQLite file, which WAL lets a second process
   * read while the appliance writes). An empty buffer alone does not mean a camera's last
   * reads arrived: a runner may still be catching up after the final start.
   */
  unseen(detectionIds: readonly string[]): string[];
  output(): string;
}

/**
 * The appliance.toml most end-to-end tests start from: linked to the hub, warnings only, the
 * setup page on loopback at the test's port, uploads every 5 s; then the test's own lines
 * (its cameras, most often).
 */
export function hubLinkedToml(hubUrl: string, ...rest: string[]): (port: number) => string {
  return (port) =>
    [`hub_url = "${hubUrl}"`, 'log_level = "warn"', '[setup]', 'host = "127.0.0.1"', `port = ${port}`, '[uplink]', 'window_seconds = 5', ...rest].join('\n');
}

/** A real appliance process with its own data folder and the given local TOML. */
export async function applianceUnderTest(
  t: { teardown(fn: () => unknown): void },
  apiKey: string,
  toml: (port: number) => string,
): Promise<ApplianceUnderTest> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-e2e-appliance-'));
  t.teardown(traced('rm data dir', () => rm(dataDir, { recursive: true, force: true })));
  await writeFile(join(dataDir, 'appliance.toml'), toml(port));
  let proc: RunningProcess | undefined;
  let log = '';
  const end = async (how: 'stop' | 'kill'): Promise<void> => {
    if (!proc) return;
    log = (log + proc.output()).slice(-100_000);
    await proc[how]();
    proc = undefined;
  };
  t.teardown(traced('stop process', () => end('stop')));
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    dataDir,
    start: async () => {
      // By default a bundle of the current sources built once for this test process
      // (appliance-bundle.ts): no TypeScript loader transpiling the appliance on every start.
      // ALPR_E2E_APPLIANCE=built runs appliance/dist/ with the device's Node flags
      // (`npm run build:appliance` first), =tsx the sources through tsx.
      const mode = process.env['ALPR_E2E_APPLIANCE'];
      const built = mode === 'built';
      const bundle = built || mode === 'tsx' ? undefined : await applianceBundle();
      proc = await startApplianceProcess({ env: { ALPR_DATA_DIR: dataDir, ALPR_API_KEY: apiKey }, timeoutMs: 60_000, built, bundle });
    },
    stop: () => end('stop'),
    kill: () => end('kill'),
    running: () => proc !== undefined,
    buffered: async () => {
      const r = await request(`${url}${STATUS_PATH}`);
      const s = (await r.body.json()) as { buffer: { states: Record<string, number> } };
      return (s.buffer.states.pending ?? 0) + (s.buffer.states.in_flight ?? 0);
    },
    cameraStates: async () => {
      const r = await request(`${url}${STATUS_PATH}`);
      const s = (await r.body.json()) as { cameras: { id: string; state: string }[] };
      return Object.fromEntries(s.cameras.map((c) => [c.id, c.state]));
    },
    unseen: (detectionIds) => unseenReads(dataDir, detectionIds),
    output: () => log + (proc?.output() ?? ''),
  };
}

/** Poll `check` until it returns true or `timeoutMs` passes (bounded; no fixed sleeps). */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, stepMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return true;
    await new Promise((r) => setTimeout(r, stepMs));
  }
  return false;
}

/**
 * The ids among `detectionIds` that the appliance in `dataDir` has not seen yet: its id
 * memory (`recent_reads`) read from the SQLite file, which WAL lets a second process read
 * while the appliance writes.
 */
export function unseenReads(dataDir: string, detectionIds: readonly string[]): string[] {
  let db: Database.Database;
  try {
    db = new Database(join(dataDir, 'buffer.sqlite'), { readonly: true, fileMustExist: true });
  } catch {
    return [...detectionIds];
  }
  try {
    const known = db.prepare('SELECT 1 FROM recent_reads WHERE detection_id = ?');
    return detectionIds.filter((id) => known.get(id) === undefined);
  } catch {
    // The appliance has not created its tables yet.
    return [...detectionIds];
  } finally {
    db.close();
  }
}
