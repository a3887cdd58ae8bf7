/**
 * The appliance with its own plate reader busy (issue 51's goals; docs/performance.md "Plate
 * reader"): the bundled appliance on plain node, as the device runs it, with three ALPR cameras
 * (vendor_a pull, vendor_a push, vendor_b WebSocket). Two phases of `--seconds` each, a fresh
 * data folder each: the three alone, then the three beside an ordinary camera whose plates the
 * appliance reads itself (the dataset photographs in a loop, drawn scenes without the dataset).
 * For each phase, from the appliance's own /metrics every 5 s: the ALPR cameras' reads buffered a
 * second, the event loop delay (the worst p99 and the max of the scrapes; goal p99 < 50 ms),
 * the peak resident memory (goal < 400 MB), the frames the reader read, and the load average.
 * No hub: the reads stay in the buffer, which is what "buffered as fast as before" measures.
 *
 *   npx tsx scripts/bench/appliance-reading.ts [--seconds 60]
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { parseExposition } from '../../shared/src/metrics/exposition.test-helper.ts';
import { createServer } from 'node:net';
import { pushPath, STATUS_PATH } from '../../appliance/src/http/local-paths.ts';
import { applianceToml } from '../demo/appliance-toml.ts';
import { DEVICE_ENV, startApplianceProcess } from '../demo/processes.ts';
import { startSnapshotCamera } from '../simulators/snapshot-camera.ts';
import { datasetAvailable, datasetPassages, drawnPassages } from '../simulators/snapshot-scenes.ts';
import { startVendorACamera } from '../simulators/vendor-a-camera.ts';
import { startVendorBNvr } from '../simulators/vendor-b-nvr.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' } } });
const seconds = Math.max(10, Number(values.seconds) || 60);
const out = (line: string): void => void process.stdout.write(`${line}\n`);
const work = await mkdtemp(join(tmpdir(), 'alpr-bench-reading-'));
const ALPR_CAMERAS = ['gate-a', 'entrance-push', 'nvr-b'];
// Nothing listens on the discard port: the uplink backs off and every read stays buffered.
const NO_HUB = 'http://127.0.0.1:9';

execFileSync(process.execPath, [join(import.meta.dirname, '../../appliance/build.mjs')], { stdio: 'inherit' });
const nvr = await startVendorBNvr({ token: 't', ratePerSecond: 1, seed: 15 });
const gate = await startVendorACamera({ username: 'admin', password: 'demo-password', ratePerSecond: 1, seed: 16 });
const passages = datasetAvailable() ? datasetPassages(20) : drawnPassages(['AB12CDE', 'XY99ZZZ', 'KL55MNO']);
const ordinary = await startSnapshotCamera({ auth: 'digest', password: 'demo-password', passages, holdMs: 2_000, gapMs: 1_000 });
out(
  `appliance with its reader busy: ${seconds} s a phase, ${passages.length} ${datasetAvailable() ? 'dataset photographs' : 'drawn scenes'} on the ordinary camera`,
);

interface PhaseFigures {
  alprReadsPerSecond: number;
  worstP99Ms: number;
  maxDelayMs: number;
  peakRssMb: number;
  framesRead: number;
  load: string;
}

/** A loopback port nobody holds now, for the appliance's setup page. */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

async function phase(withReader: boolean): Promise<PhaseFigures> {
  const dir = join(work, withReader ? 'reading' : 'alpr-only');
  await mkdir(dir, { recursive: true });
  const toml = applianceToml(NO_HUB, await freePort(), {
    vendorAPullUrl: gate.url,
    vendorAMac: gate.mac,
    nvrUrl: nvr.url,
    nvrToken: 't',
    ...(withReader ? { ordinarySnapshotUrl: ordinary.snapshotUrl } : {}),
  }).replace('log_level = "warn"', 'log_level = "error"');
  await writeFile(join(dir, 'appliance.toml'), toml);
  const appliance = await startApplianceProcess({ env: { ALPR_DATA_DIR: dir, ALPR_API_KEY: 'bench-no-hub', ...DEVICE_ENV }, built: true });
  const pusher = await startVendorACamera({
    mode: 'push',
    pushUrl: `http://127.0.0.1:${appliance.port}${pushPath('auto')}`,
    ratePerSecond: 1,
    seed: 17,
    mac: '02:00:00:00:00:aa',
  });
  const scrape = async () => parseExposition(await (await request(`http://127.0.0.1:${appliance.port}/metrics`)).body.text());
  const value = (e: Awaited<ReturnType<typeof scrape>>, key: string): number => e.samples.get(key) ?? 0;
  const alprReads = (e: Awaited<ReturnType<typeof scrape>>): number =>
    ALPR_CAMERAS.reduce((n, camera) => n + value(e, `alpr_appliance_camera_reads_total{camera="${camera}"}`), 0);
  try {
    // The cameras connect and the reader loads its models before the clock starts.
    await new Promise((r) => setTimeout(r, 10_000));
    const first = await scrape();
    const startedAt = Date.now();
    let worstP99 = 0;
    let maxDelay = 0;
    let peakRss = 0;
    let last = first;
    while (Date.now() - startedAt < seconds * 1000) {
      await new Promise((r) => setTimeout(r, 5_000));
      last = await scrape();
      worstP99 = Math.max(worstP99, value(last, 'alpr_appliance_nodejs_eventloop_lag_p99_seconds'));
      maxDelay = Math.max(maxDelay, value(last, 'alpr_appliance_nodejs_eventloop_lag_max_seconds'));
      peakRss = Math.max(peakRss, value(last, 'alpr_appliance_process_resident_memory_bytes'));
    }
    const elapsed = (Date.now() - startedAt) / 1000;
    const status = (await (await request(`http://127.0.0.1:${appliance.port}${STATUS_PATH}`)).body.json().catch(() => ({}))) as {
      cameras?: { id: string; frames?: { read: number } }[];
    };
    return {
      alprReadsPerSecond: (alprReads(last) - alprReads(first)) / elapsed,
      worstP99Ms: worstP99 * 1000,
      maxDelayMs: maxDelay * 1000,
      peakRssMb: peakRss / 1024 / 1024,
      framesRead: status.cameras?.find((c) => c.id === 'street-ordinary')?.frames?.read ?? 0,
      load: `load ${loadavg()[0]?.toFixed(2)}`,
    };
  } finally {
    await pusher.close();
    await appliance.stop();
  }
}

try {
  const alone = await phase(false);
  const reading = await phase(true);
  const row = (name: string, f: PhaseFigures): void =>
    out(
      `${name.padEnd(34)} ALPR reads ${f.alprReadsPerSecond.toFixed(2)}/s  event loop p99 worst ${f.worstP99Ms.toFixed(1)} ms, max ${f.maxDelayMs.toFixed(1)} ms  peak RSS ${f.peakRssMb.toFixed(0)} MB  frames read ${f.framesRead}  ${f.load}`,
    );
  row('3 ALPR cameras', alone);
  row('3 ALPR cameras + 1 reading camera', reading);
  out(
    `ratio of ALPR reads buffered, with the reader / without: ${(reading.alprReadsPerSecond / Math.max(alone.alprReadsPerSecond, 1e-9)).toFixed(3)} (goal: as fast as before); goals: event loop p99 < 50 ms, RSS < 400 MB`,
  );
} finally {
  await Promise.allSettled([gate.close(), nvr.close(), ordinary.close()]);
  await rm(work, { recursive: true, force: true });
}
