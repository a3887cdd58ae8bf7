import { execFile } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');

/** Creates a pending collector with the hub CLI (the hub must not be running on PGlite). */
export async function createPendingCollector(env: Record<string, string>, siteName: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(root, 'hub/src/cli/main.ts'), 'collector', 'create', '--site-name', siteName], {
    cwd: root,
    env: { ...process.env, ...env },
  });
  const code = /ALPR-[A-Z0-9]{4}-[A-Z0-9]{4}/.exec(stdout)?.[0];
  if (!code) throw new Error(`hub CLI printed no claim code:\n${stdout}`);
  return code;
}

export interface Enrollment {
  collector_id: string;
  api_key: string;
}

/** Claims the collector over HTTP as an appliance does (claim code + hardware id). */
export async function claimCollector(hubUrl: string, claimCode: string, hardwareId = `demo-${hostname()}`): Promise<Enrollment> {
  const response = await request(`${hubUrl}/api/v1/claim`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ claim_code: claimCode, hardware_id: hardwareId }),
  });
  const body = (await response.body.json()) as Partial<Enrollment> & { error?: { message?: string } };
  if (response.statusCode !== 200 && response.statusCode !== 201) {
    throw new Error(`claim failed (${response.statusCode}): ${body.error?.message ?? JSON.stringify(body)}`);
  }
  if (!body.collector_id || !body.api_key) throw new Error('claim response lacks collector_id or api_key');
  return { collector_id: body.collector_id, api_key: body.api_key };
}
