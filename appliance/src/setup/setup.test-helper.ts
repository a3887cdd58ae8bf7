/**
 * Test helpers for the setup routes: a setup server on a loopback listener over a fresh
 * data dir, form/JSON posts as a browser on the same origin would send them,.
 * Not imported by production code.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Test } from 'tap';
import { createApplianceHttpApp } from '../http/app.ts';
import { fixedIdentity } from '../vault/hardware-identity.ts';
import { fileCameraStore } from './camera-store.ts';
import type { Claimed } from './enroll.ts';
import type { SetupLog } from './ports.ts';
import { setupRoutes, type SetupDeps } from './routes.ts';

export interface LogLine {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}

export interface TestSetup {
  base: string;
  dataDir: string;
  localConfigFile: string;
  centralConfigFile: string;
  serial: string;
  claimed: Claimed[];
  camerasChanged: number;
  logs: LogLine[];
  /** The setup page's own clock (rate limit), moved by hand. */
  advance(ms: number): void;
}

export async function startSetup(t: Test, overrides: Partial<SetupDeps> & { serial?: string } = {}): Promise<TestSetup> {
  const dataDir = await mkdtemp(join(tmpdir(), 'alpr-setup-'));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const serial = overrides.serial ?? `serial:SETUP-${Math.random().toString(36).slice(2, 10)}`;
  let nowMs = Date.parse('2026-03-01T09:00:00.000Z');
  const logs: LogLine[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) => void logs.push({ level, obj, msg });
  const log: SetupLog = { info: at('info'), warn: at('warn'), error: at('error') };
  const localConfigFile = join(dataDir, 'appliance.toml');
  const centralConfigFile = join(dataDir, 'central-config.json');
  const identity = fixedIdentity(serial);
  const clock = { now: () => new Date(nowMs) };
  const setup: TestSetup = {
    base: '',
    dataDir,
    localConfigFile,
    centralConfigFile,
    serial,
    claimed: [],
    camerasChanged: 0,
    logs,
    advance: (ms) => {
      nowMs += ms;
    },
  };
  // Behind the same edge as in production (runtime/local-server.ts): it renders the routes' errors.
  const app = createApplianceHttpApp(log, [
    setupRoutes({
      clock,
      log,
      identity,
      dataDir,
      centralConfigFile,
      edgeVersion: '0.1.0-test',
      cameras: fileCameraStore({ dataDir, localConfigFile, identity, now: clock.now }),
      state: () => (setup.claimed.length > 0 ? 'claimed' : 'unclaimed'),
      onClaimed: (c) => void setup.claimed.push(c),
      onCamerasChanged: () => void (setup.camerasChanged += 1),
      ...overrides,
    }),
  ]);
  const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  setup.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return setup;
}

/** A form post as the browser sends it from the page itself (same Origin), redirects not followed. */
export function postForm(base: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export function postJson(base: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}
