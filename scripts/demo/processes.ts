import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Starting the hub and the appliance as real processes (used by `npm start` and by the
 * end-to-end and fault tests). Each signals readiness over IPC once its server listens.
 */
const root = join(import.meta.dirname, '..', '..');
const exitWithParent = pathToFileURL(join(import.meta.dirname, 'exit-with-parent.mjs')).href;

/**
 * Node flags the device image runs the bundled appliance with (image/ systemd unit): a small
 * young generation (2 MB semi-spaces instead of 16) keeps the resident set low on a 2 GB
 * device; batches of 5 MB pass through it at a small cost in collector runs.
 */
export const DEVICE_NODE_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=96'] as const;

/**
 * Environment of the device's appliance service: two glibc malloc arenas instead of one per
 * thread, so memory freed after a 5 MB batch goes back to the system instead of fragmenting
 * per-thread arenas (libuv and SQLite threads allocate image buffers too). Blocks from 1 MB up
 * (decoded frames, the plate reader's tensors) are mapped on their own and returned when freed:
 * by default glibc raises that threshold up to 32 MB as such blocks are freed and then keeps
 * them. With one reading camera beside three ALPR cameras the peak RSS was 394-401 MB without
 * it, 359-376 MB with it, 47-48 frames read a minute either way (docs/performance.md). The
 * image's systemd unit (image/systemd/alpr-appliance.service) carries the same two variables.
 */
export const DEVICE_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '1048576' } as const;

export interface RunningProcess {
  child: ChildProcess;
  port: number;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit (fault tests). */
  kill(): Promise<void>;
  /** Everything the process wrote to stdout/stderr, for test failure messages. */
  output(): string;
}

export interface StartOptions {
  env: Record<string, string>;
  /** Echo the child's output to ours (npm start) instead of only keeping it. */
  inherit?: boolean;
  timeoutMs?: number;
  /** Run the bundled JavaScript (`node appliance/build.mjs` output) instead of TypeScript via tsx. */
  built?: boolean;
  /**
   * Run this bundle (absolute path to a main.mjs that `node appliance/build.mjs <folder>` wrote)
   * instead of the sources, with the same Node flags as the sources (none of the device's): the
   * end-to-end tests build one from the current sources per test file, so a start does not
   * transpile the whole appliance again.
   */
  bundle?: string;
}

function start(entry: string, options: StartOptions, args: readonly string[] = []): Promise<RunningProcess> {
  const flags = options.bundle ? [] : entry.endsWith('.ts') ? ['--import', 'tsx'] : DEVICE_NODE_FLAGS;
  const child = fork(options.bundle ?? join(root, entry), [...args], {
    execArgv: [...flags, '--import', exitWithParent],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    cwd: root,
  });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-200_000);
    if (options.inherit) process.stdout.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const signal = async (name: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    // A process that does not finish a graceful stop in 15 s is killed: a stuck shutdown
    // must not hang `npm start` or a test run.
    const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(force);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} did not become ready in time:\n${output.slice(-4000)}`));
    }, options.timeoutMs ?? 60_000);
    const early = (code: number | null): void => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code} before it was ready:\n${output.slice(-4000)}`));
    };
    child.once('exit', early);
    child.on('message', (message: unknown) => {
      const m = message as { ready?: boolean; port?: number };
      if (!m.ready) return;
      clearTimeout(timer);
      child.off('exit', early);
      // A process without a server (the alert worker) reports no port.
      resolve({ child, port: typeof m.port === 'number' ? m.port : 0, stop: () => signal('SIGTERM'), kill: () => signal('SIGKILL'), output: () => output });
    });
  });
}

export const startHubProcess = (options: StartOptions): Promise<RunningProcess> => start('hub/src/main.ts', options);
/** `npm run hub -- worker`: the alert worker on its own (fault tests kill it mid-batch). */
export const startAlertWorkerProcess = (options: StartOptions): Promise<RunningProcess> => start('hub/src/cli/main.ts', options, ['worker']);
export const startApplianceProcess = (options: StartOptions): Promise<RunningProcess> =>
  start(options.built ? 'appliance/dist/main.mjs' : 'appliance/src/main.ts', options);
