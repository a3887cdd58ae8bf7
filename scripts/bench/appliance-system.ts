/**
 * Appliance system benchmark (issue 4): real hub + real appliance processes on loopback.
 *  1. Drain after an outage: N detections with images are buffered while no hub is reachable,
 *     then the hub comes up; prints the drain rate (detections/s) and how much faster than
 *     the planned arrival rates (50-200 detections/min per appliance) it is.
 *  2. Resident memory of the appliance process with 4 simulated cameras (2 vendor_a pull,
 *     1 vendor_a push, 1 vendor_b WebSocket) for a while; goal under 150 MB.
 *
 *   npx tsx scripts/bench/appliance-system.ts [--backlog 3000] [--seconds 40]
 * Uses DATABASE_URL when set (real Postgres), embedded PGlite otherwise.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { closeBuffer, insertDetections, openBuffer } from '../../appliance/src/buffer/index.ts';
import { applianceToml } from '../demo/appliance-toml.ts';
import { claimCollector, createPendingCollector } from '../demo/enroll.ts';
import { DEVICE_ENV, startApplianceProcess, startHubProcess } from '../demo/processes.ts';
import { startVendorACamera } from '../simulators/vendor-a-camera.ts';
import { startVendorBNvr } from '../simulators/vendor-b-nvr.ts';
import { pushPath, STATUS_PATH } from '../../appliance/src/http/local-paths.ts';

const { values } = parseArgs({ options: { backlog: { type: 'string', default: '3000' }, seconds: { type: 'string', default: '40' } } });
const backlog = Number(values.backlog);
const seconds = Number(values.seconds);
const work = await mkdtemp(join(tmpdir(), 'alpr-bench-'));
const hubPort = 18000 + Math.floor(Math.random() * 1000);
const hubUrl = `http://127.0.0.1:${hubPort}`;
const hubEnv = { HUB_DATA_DIR: join(work, 'hub'), HUB_PORT: String(hubPort), HUB_HOST: '127.0.0.1', HUB_LOG_LEVEL: 'warn' };
if (process.env.DATABASE_URL) {
  // A fresh database so figures do not depend on earlier runs.
  const { default: postgres } = await import('postgres');
  const admin = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => undefined });
  const name = `alpr_bench_${randomBytes(4).toString('hex')}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  Object.assign(hubEnv, { DATABASE_URL: url.toString() });
} else {
  Object.assign(hubEnv, { DATABASE_URL: '' });
}
const out = (line: string): void => void process.stdout.write(`${line}\n`);
out(`appliance system bench: backlog ${backlog}, memory window ${seconds} s, database ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}`);

const code = await createPendingCollector(hubEnv, 'Bench site');
let hub = await startHubProcess({ env: hubEnv, timeoutMs: 120_000 });
const { api_key: apiKey } = await claimCollector(hubUrl, code, `bench-${hubPort}`);
await hub.stop();

// 1. Outage backlog, written straight into the appliance's buffer file (as the camera runners would).
const applianceDir = join(work, 'appliance');
await rm(applianceDir, { recursive: true, force: true });
await import('node:fs/promises').then((fs) => fs.mkdir(applianceDir, { recursive: true }));
const buffer = openBuffer({ file: join(applianceDir, 'buffer.sqlite'), clock: { now: () => new Date() }, log: { info() {}, warn() {}, error() {} } });
const t0 = Date.now() - backlog * 1000;
const items = Array.from({ length: backlog }, (_, i) => ({
  detection: {
    detection_id: randomUUID(),
    timestamp: new Date(t0 + i * 1000).toISOString(),
    camera: { id: 'bench-cam', mac: '0200000000b1' },
    plate: { text: `BN${String(i).padStart(6, '0')}`, confidence: 0.9 },
    vehicle: { direction: 'entering' as const },
  },
  images: { plate_crop: randomBytes(20_000), full_scene: randomBytes(65_000) },
}));
for (let i = 0; i < items.length; i += 100) insertDetections(buffer, items.slice(i, i + 100));
closeBuffer(buffer);

const setupPort = hubPort + 1;
const nvr = await startVendorBNvr({ token: 't', ratePerSecond: 0.5, seed: 5 });
const camA = await startVendorACamera({ username: 'admin', password: 'demo-password', ratePerSecond: 0.5, seed: 6 });
const camA2 = await startVendorACamera({ username: 'admin', password: 'demo-password', ratePerSecond: 0.5, seed: 7 });
const toml =
  applianceToml(hubUrl, setupPort, { vendorAPullUrl: camA.url, vendorAMac: camA.mac, nvrUrl: nvr.url, nvrToken: 't' }).replace(
    'log_level = "warn"',
    'log_level = "error"',
  ) +
  `\n[[cameras]]\nid = "gate-a2"\nvendor = "vendor_a"\nmode = "pull"\nhost = "127.0.0.1"\nport = ${new URL(camA2.url).port}\nusername = "admin"\npassword = "demo-password"\nmac = "${camA2.mac}"\n`;
await writeFile(join(applianceDir, 'appliance.toml'), toml);
// Measured as the device runs it: the bundled JavaScript on plain node.
execFileSync(process.execPath, [join(import.meta.dirname, '../../appliance/build.mjs')], { stdio: 'inherit' });
const appliance = await startApplianceProcess({ env: { ALPR_DATA_DIR: applianceDir, ALPR_API_KEY: apiKey, ...DEVICE_ENV }, built: true });
const pusher = await startVendorACamera({
  mode: 'push',
  pushUrl: `http://127.0.0.1:${appliance.port}${pushPath('auto')}`,
  ratePerSecond: 0.5,
  seed: 8,
  mac: '02:00:00:00:00:aa',
});
const buffered = async (): Promise<number> => {
  const r = await request(`http://127.0.0.1:${appliance.port}${STATUS_PATH}`);
  const s = (await r.body.json()) as { buffer: { states: Record<string, number> } };
  return (s.buffer.states.pending ?? 0) + (s.buffer.states.in_flight ?? 0);
};
out(`buffered during the outage: ${await buffered()}`);
hub = await startHubProcess({ env: hubEnv, timeoutMs: 120_000 });
const drainStart = Date.now();
while ((await buffered()) > 10) await new Promise((r) => setTimeout(r, 200));
const drainSeconds = (Date.now() - drainStart) / 1000;
const rate = backlog / drainSeconds;
out(`drain after outage: ${backlog} detections (20 KB + 65 KB images each) in ${drainSeconds.toFixed(1)} s = ${rate.toFixed(0)} detections/s`);
out(`  ratio to arrival: x${(rate / (50 / 60)).toFixed(0)} vs 50/min (2 GB device), x${(rate / (200 / 60)).toFixed(0)} vs 200/min (8 GB device)`);

// 2. Memory with 4 cameras running.
const rssMb = async (): Promise<number> => {
  const status = await readFile(`/proc/${appliance.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};
const samples: number[] = [];
for (let i = 0; i < seconds; i++) {
  samples.push(await rssMb());
  await new Promise((r) => setTimeout(r, 1000));
}
samples.sort((a, b) => a - b);
const pick = (q: number): number => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
out(
  `appliance resident memory with 4 cameras over ${seconds} s: p50 ${pick(0.5).toFixed(0)} MB, max ${pick(1).toFixed(0)} MB (goal < 150 MB; bundled build on plain node)`,
);
out(`  reads delivered meanwhile: ${camA.delivered.length + camA2.delivered.length + nvr.delivered.length + pusher.delivered.length}`);

await Promise.allSettled([pusher.close(), camA.close(), camA2.close(), nvr.close()]);
await appliance.stop();
await hub.stop();
await rm(work, { recursive: true, force: true });
