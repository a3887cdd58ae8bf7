import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOOPBACK } from './server.ts';

/**
 * A real MQTT broker for tests: Debian's mosquitto on loopback, on a free port, with a generated
 * configuration (optional users with a password file, optional TLS listener), started and stopped
 * by the test. `stop()` then `start()` again keeps the same ports and files: a broker that goes
 * down and comes back. Nothing is persisted between runs; within one, `persistence` keeps
 * sessions across a stop and a start.
 */

export const MOSQUITTO_BIN = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((p) => existsSync(p)) ?? 'mosquitto';

export interface MosquittoOptions {
  /** user -> password; with users, anonymous clients are refused. */
  users?: Readonly<Record<string, string>>;
  /** A TLS listener beside the plain one, with this certificate (PEM). */
  tls?: { certPem: string; keyPem: string };
  /**
   * Keep sessions, subscriptions and queued messages across `stop()` and `start()` (mosquitto
   * saves them on SIGTERM and reads them back), as a broker with persistence on does: a
   * subscriber with `clean: false` then misses nothing published while it was reconnecting.
   */
  persistence?: boolean;
}

export interface MosquittoHandle {
  /** `mqtt://127.0.0.1:<port>` */
  url: string;
  /** `mqtts://localhost:<port>` when TLS was asked for. */
  tlsUrl?: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Stop and remove its files. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, LOOPBACK, resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

const accepts = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, LOOPBACK);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

/** Whether Debian's mosquitto (the broker and mosquitto_passwd) is on this machine. */
export function mosquittoInstalled(): boolean {
  return MOSQUITTO_BIN !== 'mosquitto' || spawnSync('mosquitto', ['-h']).error === undefined;
}

export async function startMosquitto(options: MosquittoOptions = {}): Promise<MosquittoHandle> {
  // npm test leaves these tests out on a machine without it (scripts/test/run.sh); a file run
  // on its own says what is missing instead of failing on a spawn error.
  if (!mosquittoInstalled()) throw new Error('mosquitto is not installed: apt-get install mosquitto (Debian) to run the MQTT tests');
  const dir = mkdtempSync(join(tmpdir(), 'alpr-mosquitto-'));
  const port = await freePort();
  const tlsPort = options.tls ? await freePort() : undefined;
  const lines = [
    `listener ${port} ${LOOPBACK}`,
    ...(options.persistence ? ['persistence true', `persistence_location ${dir}/`] : ['persistence false']),
    'log_dest stderr',
    'log_type error',
    'log_type warning',
  ];
  // Run as root, mosquitto would switch to its own user and lose access to these files.
  if (userInfo().uid === 0) lines.unshift('user root');
  if (options.users) {
    const passwords = join(dir, 'passwords');
    writeFileSync(passwords, '', { mode: 0o600 });
    for (const [user, password] of Object.entries(options.users)) {
      const made = spawnSync('mosquitto_passwd', ['-b', passwords, user, password], { encoding: 'utf8' });
      if (made.status !== 0) throw new Error(`mosquitto_passwd: ${made.stderr}`);
    }
    lines.push('allow_anonymous false', `password_file ${passwords}`);
  } else {
    lines.push('allow_anonymous true');
  }
  if (options.tls && tlsPort !== undefined) {
    writeFileSync(join(dir, 'cert.pem'), options.tls.certPem);
    writeFileSync(join(dir, 'key.pem'), options.tls.keyPem, { mode: 0o600 });
    lines.push(`listener ${tlsPort} ${LOOPBACK}`, `certfile ${join(dir, 'cert.pem')}`, `keyfile ${join(dir, 'key.pem')}`);
  }
  const configFile = join(dir, 'mosquitto.conf');
  writeFileSync(configFile, `${lines.join('\n')}\n`);

  let child: ChildProcess | undefined;
  let stderr = '';
  const handle: MosquittoHandle = {
    url: `mqtt://${LOOPBACK}:${port}`,
    ...(tlsPort !== undefined ? { tlsUrl: `mqtts://localhost:${tlsPort}` } : {}),
    port,
    async start() {
      if (child) return;
      stderr = '';
      const started = spawn(MOSQUITTO_BIN, ['-c', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
      started.stderr?.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
      });
      child = started;
      // Generous: a loaded 2-core box may take seconds to start a process.
      for (let i = 0; i < 600; i++) {
        if (started.exitCode !== null) throw new Error(`mosquitto exited (${started.exitCode}): ${stderr}`);
        if ((await accepts(port)) && (tlsPort === undefined || (await accepts(tlsPort)))) return;
        await sleep(50);
      }
      throw new Error(`mosquitto did not listen on ${port}: ${stderr}`);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      await exited;
    },
    async close() {
      await handle.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}
