import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import type { GuestShell } from './guest-shell.ts';
import type { HubRow } from './power-cut-ledger.ts';

/**
 * What the hub server VM holds, read inside the guest through its root shell (test overlay):
 * the rows with psql, the image bytes from the hub's segment files, the hash chains with the
 * hub's own CLI. The hub power-cut test judges these against what the hub acknowledged.
 */

/**
 * psql as the hub's own database user, with the URL first boot wrote into the settings file.
 * No pager: the guest shell is a terminal, and psql waited in its pager for a key (the first
 * run timed out after 300 s).
 */
const psql = (sql: string): string => `psql -X -P pager=off "$(sed -n 's/^DATABASE_URL=//p' /etc/alpr/hub.env)" -AtF ' ' -c "${sql}"`;

/** undici's TLS connector that accepts the hub's self-signed certificate only when its SHA-256 is `fingerprint256` (AB:CD:... as node prints it). */
export function pinnedAgent(fingerprint256: string): Agent {
  // No session resumption: a resumed TLS 1.3 session shows no peer certificate to check
  // (the smoke run saw fingerprint256 undefined on a second connection).
  const connect = buildConnector({ rejectUnauthorized: false, maxCachedSessions: 0 });
  return new Agent({
    connect: (options, callback) =>
      connect(options, (error, socket) => {
        if (error !== null) return callback(error, null);
        const tls = socket as TLSSocket;
        const seen = tls.getPeerX509Certificate()?.fingerprint256;
        if (seen === fingerprint256) return callback(null, socket);
        const refused = new Error(`hub certificate ${seen ?? 'none'} (resumed: ${tls.isSessionReused()}) is not the pinned ${fingerprint256}`);
        socket.destroy();
        callback(refused, null);
      }),
  });
}

/** The fingerprint `alpr-hub hub-certificate show` prints. */
export const shownFingerprint = (shown: string): string | undefined => /(?:[0-9A-F]{2}:){31}[0-9A-F]{2}/i.exec(shown)?.[0].toUpperCase();

/** Every detection row of these collectors (a detection id twice is two rows). */
export async function guestRows(shell: GuestShell, collectorIds: readonly string[]): Promise<HubRow[]> {
  const ids = collectorIds.map((id) => `'${id}'`).join(',');
  const out = await shell.check(
    psql(`SELECT detection_id, plate_normalized, replace(captured_at::text, ' ', 'T') FROM detections WHERE collector_id IN (${ids})`),
    300_000,
  );
  return out
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [detection_id = '', plate_normalized = '', captured_at = ''] = line.trim().split(' ');
      return { detection_id, plate_normalized, captured_at };
    });
}

/**
 * Runs in the guest's node: for each indexed image (hash, segment, offset, size on stdin) the
 * bytes at that place in its segment file, hashed. The hub's read path (image-store.ts) does
 * the same lookup and read; a match of SHA-256 is a byte-for-byte match.
 */
const READ_BACK = `
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
const dir = '/var/lib/alpr-hub/images/segments';
for (const line of readFileSync(0, 'utf8').split('\\n')) {
  const [hash, segment, offset, size] = line.trim().split(' ');
  if (!hash) continue;
  try {
    const fd = openSync(dir + '/' + segment.padStart(16, '0') + '.aij', 'r');
    const bytes = Buffer.alloc(Number(size));
    const got = readSync(fd, bytes, 0, bytes.length, Number(offset));
    closeSync(fd);
    const ok = got === bytes.length && createHash('sha256').update(bytes).digest('hex') === hash;
    console.log((ok ? 'ok ' : 'bad ') + hash);
  } catch (error) {
    console.log('missing ' + hash);
  }
}
`;

/** Hashes whose stored bytes read back intact, and those indexed but damaged or missing. */
export async function guestImages(shell: GuestShell): Promise<{ intact: Set<string>; damaged: string[] }> {
  await shell.check(`echo ${Buffer.from(READ_BACK).toString('base64')} | base64 -d > /tmp/read-back.mjs`);
  const out = await shell.check(`${psql("SELECT encode(sha256, 'hex'), segment, byte_offset, size FROM image_locations")} | node /tmp/read-back.mjs`, 600_000);
  const intact = new Set<string>();
  const damaged: string[] = [];
  for (const line of out.split('\n')) {
    const [verdict, hash] = line.trim().split(' ');
    if (!hash) continue;
    if (verdict === 'ok') intact.add(hash);
    else damaged.push(`${verdict} ${hash}`);
  }
  return { intact, damaged };
}

/** `alpr-hub chain verify` for each collector, in the guest: the broken ones, with what the CLI said. */
export async function guestChainProblems(shell: GuestShell, collectorIds: readonly string[]): Promise<string[]> {
  const problems: string[] = [];
  for (const id of collectorIds) {
    // 10 minutes: a node CLI under software emulation on a host at load 7-9 passed 5 (a
    // clean-clone CI run with a full npm test beside it).
    const r = await shell.run(`alpr-hub chain verify ${id} --json`, 600_000);
    const line = r.out.split('\n').find((l) => l.startsWith('{')) ?? '';
    let chain = '';
    try {
      chain = String((JSON.parse(line) as { chain?: unknown }).chain ?? '');
    } catch {
      chain = '';
    }
    if (r.code !== 0 || chain !== 'intact') problems.push(`${id}: exit ${r.code} ${r.out.slice(-400)}`);
  }
  return problems;
}
