import { childText, parseXmlSafely } from '@alpr/shared/adapters/xml';
import { baseUrlOf, verifiesTls, type CameraConfig } from '../cameras/config.ts';
import { DEVICE_INFO_PATH } from '../cameras/vendor-a-device.ts';
import { BOOTSTRAP_PATH } from '../cameras/vendor-b-console.ts';
import { parseChallenges } from '../cameras/http/challenge.ts';
import { createBearerClient } from '../cameras/http/bearer.ts';
import { createDigestClient } from '../cameras/http/digest.ts';
import { createCameraAgent, sendOnce, type CameraResponse } from '../cameras/http/transport.ts';

/**
 * "Test connection" on the setup page: one request the runner would make, and a plain
 * account of what the camera answered. vendor_a: an unauthenticated GET of deviceInfo
 * (shows the auth scheme and realm the camera asks for), then the same with Digest and
 * the stored credentials (shows model, serial, MAC). vendor_b: the bootstrap with the
 * token (shows the console name and how many cameras it has). Never throws.
 */
export interface ProbeReport {
  cameraId: string;
  url: string;
  ok: boolean;
  /** One line for the page: what happened, in words. */
  summary: string;
  /** Label/value pairs the camera told us (never a credential). */
  facts: [string, string][];
}

/** 5 s: a camera on the LAN answers in well under a second; the page must not hang. */
const PROBE_TIMEOUT_MS = 5_000;
const MAX_PROBE_BODY = 2 * 1024 * 1024;
const timeouts = { headersTimeoutMs: PROBE_TIMEOUT_MS, bodyTimeoutMs: PROBE_TIMEOUT_MS, maxBodyBytes: MAX_PROBE_BODY };

export async function probeCamera(camera: CameraConfig): Promise<ProbeReport> {
  const base = baseUrlOf(camera);
  const url = `${base}${camera.vendor === 'vendor_a' ? DEVICE_INFO_PATH : BOOTSTRAP_PATH}`;
  try {
    return camera.vendor === 'vendor_a' ? await probeVendorA(camera, url) : await probeVendorB(camera, url);
  } catch (error) {
    return { cameraId: camera.id, url, ok: false, summary: `No answer: ${error instanceof Error ? error.message : String(error)}`, facts: [] };
  }
}

function authFacts(res: CameraResponse): [string, string][] {
  const challenges = parseChallenges(res.headers['www-authenticate']);
  return challenges.map((c) => {
    const details = [
      c.params['realm'] ? `realm "${c.params['realm']}"` : undefined,
      c.params['algorithm'] ? `algorithm ${c.params['algorithm']}` : undefined,
      c.params['qop'] ? `qop ${c.params['qop']}` : undefined,
    ]
      .filter((d) => d !== undefined)
      .join(', ');
    return ['Authentication asked', `${c.scheme}${details ? ` (${details})` : ''}`];
  });
}

const statusFact = (label: string, res: CameraResponse): [string, string] => [label, `HTTP ${res.status}`];

async function probeVendorA(camera: CameraConfig, url: string): Promise<ProbeReport> {
  const agent = createCameraAgent({ rejectUnauthorized: verifiesTls(camera), ...timeouts });
  let anonymous: CameraResponse;
  try {
    anonymous = await sendOnce(agent, { url }, MAX_PROBE_BODY);
  } finally {
    await agent.close();
  }
  const facts: [string, string][] = [statusFact('Without credentials', anonymous), ...authFacts(anonymous)];
  if (!camera.username) {
    return { cameraId: camera.id, url, ok: false, summary: `The camera answered HTTP ${anonymous.status}; no username stored to log in with.`, facts };
  }
  const client = createDigestClient({ username: camera.username, password: camera.password ?? '', rejectUnauthorized: verifiesTls(camera), ...timeouts });
  let res: CameraResponse;
  try {
    res = await client.request({ url });
  } finally {
    await client.close();
  }
  facts.push(statusFact('With the stored credentials', res));
  if (res.status === 401) {
    return { cameraId: camera.id, url, ok: false, summary: 'The camera refused the username or password (HTTP 401).', facts };
  }
  if (res.status !== 200) return { cameraId: camera.id, url, ok: false, summary: `The camera answered HTTP ${res.status}.`, facts };
  const parsed = parseXmlSafely(res.body, { maxBytes: 256 * 1024 });
  if (!parsed.ok) return { cameraId: camera.id, url, ok: false, summary: `The camera answered HTTP 200, but not device information: ${parsed.reason}`, facts };
  for (const [tag, label] of [
    ['deviceName', 'Device name'],
    ['model', 'Model'],
    ['serialNumber', 'Serial number'],
    ['macAddress', 'MAC address'],
    ['firmwareVersion', 'Firmware'],
  ] as const) {
    const value = childText(parsed.root, tag);
    if (value) facts.push([label, value.slice(0, 100)]);
  }
  return { cameraId: camera.id, url, ok: true, summary: 'Connected: the camera accepted the credentials and sent its device information.', facts };
}

async function probeVendorB(camera: CameraConfig, url: string): Promise<ProbeReport> {
  const client = createBearerClient({ token: camera.token ?? '', header: camera.tokenHeader, rejectUnauthorized: verifiesTls(camera), ...timeouts });
  let res: CameraResponse;
  try {
    res = await client.request({ url });
  } finally {
    await client.close();
  }
  const facts: [string, string][] = [statusFact('With the stored token', res), ...authFacts(res)];
  if (res.status === 401 || res.status === 403) {
    return { cameraId: camera.id, url, ok: false, summary: `The console refused the token (HTTP ${res.status}).`, facts };
  }
  if (res.status !== 200) return { cameraId: camera.id, url, ok: false, summary: `The console answered HTTP ${res.status}.`, facts };
  let body: unknown;
  try {
    body = JSON.parse(res.body.toString('utf8')) as unknown;
  } catch {
    return { cameraId: camera.id, url, ok: false, summary: 'The console answered HTTP 200, but not JSON.', facts };
  }
  const bootstrap = body as { cameras?: unknown; nvr?: { name?: unknown; version?: unknown } };
  if (!Array.isArray(bootstrap.cameras))
    return { cameraId: camera.id, url, ok: false, summary: 'The console answered HTTP 200, but the bootstrap has no camera list.', facts };
  if (typeof bootstrap.nvr?.name === 'string') facts.push(['Console', bootstrap.nvr.name.slice(0, 100)]);
  if (typeof bootstrap.nvr?.version === 'string') facts.push(['Version', bootstrap.nvr.version.slice(0, 50)]);
  facts.push(['Cameras on the console', String(bootstrap.cameras.length)]);
  return { cameraId: camera.id, url, ok: true, summary: `Connected: the console accepted the token and lists ${bootstrap.cameras.length} camera(s).`, facts };
}
