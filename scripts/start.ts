/**
 * `npm start`: the whole product on this machine with embedded defaults: a hub on embedded
 * Postgres (PGlite), an appliance claimed to it, and three simulated cameras (vendor_a pull
 * with Digest, vendor_a push, vendor_b NVR over WebSocket), plus a camera passing watched
 * cars and a simulated Telegram Bot API whose chat gets the alerts (a transcript line per
 * message). Prints where to look. Ctrl-C stops
 * everything; data stays in .data/demo, so a restart resumes where it left off.
 */
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { probeLan } from '../appliance/src/discovery/probe.ts';
import { startVendorACamera } from './simulators/vendor-a-camera.ts';
import { startVendorBNvr } from './simulators/vendor-b-nvr.ts';
import { applianceToml } from './demo/appliance-toml.ts';
import { createDemoAdmin } from './demo/demo-admin.ts';
import { createPendingCollector } from './demo/enroll.ts';
import { startApplianceProcess, startHubProcess } from './demo/processes.ts';
import { startBotApi } from './simulators/telegram-bot-api.ts';
import { setupDemoBot } from './demo/demo-bot.ts';
import { startWatchedCars, WATCHED_PLATES } from './demo/watched-cars.ts';
import { startSnapshotCamera } from './simulators/snapshot-camera.ts';
import { drawnPassages } from './simulators/snapshot-scenes.ts';
import { DEMO_HUB_SETTINGS, transparencyUrl } from './demo/hub-settings.ts';
import { demoPort, startOnPreferredPort } from './demo/preferred-port.ts';

const root = join(import.meta.dirname, '..');
const dataDir = join(root, '.data', 'demo');
const hubPort = Number(process.env.DEMO_HUB_PORT ?? 8000);
const appliancePort = Number(process.env.DEMO_APPLIANCE_PORT ?? 8080);
const hubUrl = `http://127.0.0.1:${hubPort}`;
// The messaging bot talks to a simulated Bot API on loopback (docs/messaging.md "Simulator").
const bot = await startBotApi({ token: '424242:demo-bot-token' });
const hubEnv = {
  HUB_DATA_DIR: join(dataDir, 'hub'),
  HUB_PORT: String(hubPort),
  HUB_HOST: '127.0.0.1',
  HUB_LOG_LEVEL: 'warn',
  DATABASE_URL: '',
  HUB_PUBLIC_URL: hubUrl,
  HUB_TELEGRAM_BOT_TOKEN: bot.token,
  HUB_TELEGRAM_API_URL: bot.url,
  ...DEMO_HUB_SETTINGS,
};
const say = (line: string): void => void process.stdout.write(`[demo] ${line}\n`);

await mkdir(dataDir, { recursive: true, mode: 0o700 });
const applianceDir = join(dataDir, 'appliance');
await mkdir(applianceDir, { recursive: true, mode: 0o700 });
// The appliance keeps its enrollment in its own encrypted keystore: claimed once, it stays claimed.
const claimed = await access(join(applianceDir, 'credentials.enc')).then(
  () => true,
  () => false,
);
let claimCode: string | undefined;
if (!claimed) {
  say('creating a pending collector with the hub CLI (first start takes a few seconds: embedded Postgres)');
  claimCode = await createPendingCollector(hubEnv, 'Demo site');
}
// The dashboard's demo admin: created once (before the hub opens PGlite), password kept 0600.
const admin = await createDemoAdmin(hubEnv, join(dataDir, 'admin-password'));
const linkCode = await setupDemoBot(hubEnv, admin.email);
say(`starting the hub on ${hubUrl} (embedded Postgres in ${hubEnv.HUB_DATA_DIR})`);
const hub = await startHubProcess({ env: hubEnv, timeoutMs: 120_000 });
// The demo admin's phone: a chat that links itself with the code, as a user would.
const DEMO_CHAT = 4242;
if (linkCode) await bot.userSays(DEMO_CHAT, `/link ${linkCode}`);
let transcribed = 0;
const transcript = setInterval(() => {
  for (const m of bot.sent.slice(transcribed)) {
    const photo = m.method === 'sendPhoto' ? ` with a ${Math.round(m.photoBytes / 1024)} kB photo` : '';
    say(`bot -> chat ${m.chatId}${photo}: ${m.text.replace(/\s*\n+\s*/g, ' | ')}`);
  }
  transcribed = bot.sent.length;
}, 1000);

// It also answers ONVIF WS-Discovery (on 127.0.0.1, and on the multicast group where the host allows it).
// A field fault a newcomer should see: this camera's clock is 8 years ahead. Its reads arrive
// with corrected times and the diagnostics page says so (docs/cameras.md "Camera clocks").
// Fixed ports (README.md "Quick start"), so a camera added on the hub with a simulator's URL
// still answers after a restart; a taken port falls back to a free one, said below.
const cameraAStart = await startOnPreferredPort(demoPort(process.env, 'DEMO_CAMERA_PORT', 8081), (port) =>
  startVendorACamera({
    port,
    username: 'admin',
    password: 'demo-password',
    ratePerSecond: 0.5,
    mode: 'pull',
    seed: 1,
    wsDiscovery: { multicast: true },
    clockOffsetMs: 8 * 365.25 * 86_400_000,
  }),
);
const cameraA = cameraAStart.handle;
const nvrStart = await startOnPreferredPort(demoPort(process.env, 'DEMO_NVR_PORT', 8082), (port) =>
  startVendorBNvr({ port, token: 'demo-token', ratePerSecond: 0.3, seed: 2 }),
);
const nvr = nvrStart.handle;
// The fourth kind: an ordinary IP camera (JPEG snapshots behind Digest) that reads nothing
// itself; the appliance reads the plates of the drawn cars passing it (docs/ordinary-cameras.md).
// One of them is on the demo watchlist. 6 s in view, then 4 s of empty road.
const ordinaryStart = await startOnPreferredPort(demoPort(process.env, 'DEMO_ORDINARY_PORT', 8083), (port) =>
  startSnapshotCamera({
    port,
    auth: 'digest',
    username: 'admin',
    password: 'demo-password',
    passages: drawnPassages(['KT55XYZ', 'AB12CDE', WATCHED_PLATES[2], 'LM40RST', 'PX88HJK'], 11),
    holdMs: 6_000,
    gapMs: 4_000,
  }),
);
const ordinary = ordinaryStart.handle;
for (const [what, started, name] of [
  ['vendor_a camera', cameraAStart, 'DEMO_CAMERA_PORT'],
  ['vendor_b NVR', nvrStart, 'DEMO_NVR_PORT'],
  ['ordinary camera', ordinaryStart, 'DEMO_ORDINARY_PORT'],
] as const)
  if (started.fellBack)
    say(
      `${what}: ${started.fellBack}, listening on ${started.handle.port} instead (set ${name} to choose; cameras added on the hub with the old port need editing)`,
    );
await writeFile(
  join(applianceDir, 'appliance.toml'),
  applianceToml(hubUrl, appliancePort, {
    vendorAPullUrl: cameraA.url,
    vendorAMac: cameraA.mac,
    nvrUrl: nvr.url,
    nvrToken: 'demo-token',
    ordinarySnapshotUrl: ordinary.snapshotUrl,
  }),
);
const appliance = await startApplianceProcess({ env: { ALPR_DATA_DIR: applianceDir }, inherit: true });
if (claimCode) {
  // What an installer does on the setup page: hub URL + claim code, posted to the appliance.
  const response = await request(`http://127.0.0.1:${appliance.port}/setup/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ hub_url: hubUrl, claim_code: claimCode }),
  });
  const answer = (await response.body.json()) as { collector_id?: string; key_prefix?: string; error?: { message?: string } };
  if (response.statusCode !== 200) throw new Error(`claim through the setup page failed: ${answer.error?.message ?? response.statusCode}`);
  say(`appliance claimed collector ${answer.collector_id} (key ${answer.key_prefix}…) with claim code ${claimCode}`);
}
const pusher = await startVendorACamera({
  mode: 'push',
  pushUrl: `http://127.0.0.1:${appliance.port}/api/v1/ingest/auto`,
  mac: '02:00:00:00:00:aa',
  ratePerSecond: 0.2,
  seed: 3,
  pushFormat: 'multipart',
  // A field fault: now and then a text part labelled image/jpeg (diagnostics: imagesNotImages).
  mislabelledImageRate: 0.1,
});
const watchedCars = startWatchedCars({ pushUrl: `http://127.0.0.1:${appliance.port}/api/v1/ingest/vendor_a` });
// What "Find cameras" on an unclaimed appliance's setup page does, pointed at the simulator.
const found = cameraA.discovery
  ? await probeLan({ target: { address: cameraA.discovery.address, port: cameraA.discovery.port }, interfaces: ['127.0.0.1'], windowMs: 2_000 })
  : [];
if (found.length === 0) say('WS-Discovery: the simulated camera did not answer');
for (const d of found)
  say(`WS-Discovery found ${d.address}:${d.port ?? 80} ${d.manufacturer ?? '?'} ${d.model ?? '?'} (setup page: Find cameras, before the claim)`);

say('running:');
say(`  dashboard              ${hubUrl}/   sign in as ${admin.email} with password ${admin.password}`);
say('                         first sign-in sets up two-factor: scan the QR code with an authenticator app,');
say('                         or run `npm run totp -- <key shown under the QR code>` for the codes');
say(`  hub                    ${hubUrl}/healthz`);
say(`  public account         ${transparencyUrl(hubUrl)}   (no sign-in; HUB_TRANSPARENCY=on here, off by default)`);
say(`  appliance diagnostics  http://127.0.0.1:${appliance.port}/   (JSON: /api/v1/status)`);
say(`  vendor_a camera (pull) ${cameraA.url} (login admin / demo-password)   vendor_b NVR ${nvr.url} (API key demo-token)`);
say(`  ordinary camera        ${ordinary.snapshotUrl} (JPEG snapshots, login admin / demo-password): the appliance reads its plates itself`);
say(
  '                         the same ports at every start (DEMO_CAMERA_PORT, DEMO_NVR_PORT, DEMO_ORDINARY_PORT); a third vendor_a camera pushes to the appliance',
);
say(`  messaging bot          simulated Bot API ${bot.url}; chat ${DEMO_CHAT} is linked to ${admin.email} and prints`);
say('                         a "bot -> chat" line per alert (watchlist "Demo: watched cars", a car every 40 s)');
say('  hub CLI (after stopping): npm run hub -- collector list   |   chain check: npm run hub -- chain verify <collector-id>');
say('Ctrl-C to stop.');

const report = setInterval(() => {
  request(`http://127.0.0.1:${appliance.port}/api/v1/status`)
    .then(async (r) => {
      const s = (await r.body.json()) as {
        buffer: { states: Record<string, number> };
        uplink: { keyStatus: string; lastSuccessAtMs: number | null; totals: { batches: number; stored: number; duplicate: number } } | null;
      };
      const u = s.uplink;
      const last = u?.lastSuccessAtMs ? `${Math.round((Date.now() - u.lastSuccessAtMs) / 1000)} s ago` : 'never';
      say(
        `cameras delivered ${cameraA.delivered.length + nvr.delivered.length + pusher.delivered.length} reads | ` +
          `appliance buffer: ${s.buffer.states.pending ?? 0} waiting | uploaded to the hub: ${u?.totals.stored ?? 0} stored ` +
          `in ${u?.totals.batches ?? 0} batches, last ${last}, key ${u?.keyStatus ?? 'none'}`,
      );
    })
    .catch(() => undefined);
}, 15_000);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(report);
  clearInterval(transcript);
  watchedCars.close();
  say('stopping');
  await Promise.allSettled([pusher.close(), cameraA.close(), nvr.close(), ordinary.close()]);
  await appliance.stop();
  await hub.stop();
  await bot.close();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
