/**
 * The loop every queue worker runs (alert worker, bot delivery): one pass, then sleep for
 * as long as the pass says, or until woken (a NOTIFY on `channel`, or `wake()`). A pass that
 * throws is logged and retried after `errorWaitMs`: the database may be away, and polling
 * is the safety net. `stop()` lets the pass in hand finish.
 */
import type { Unlisten } from '../../db/client.ts';
import type { Listen } from '../../db/listen.ts';
import type { Log } from '../log.ts';

export interface WakeableLoop {
  start(listen?: Listen): Promise<void>;
  stop(): Promise<void>;
  wake(): void;
  readonly running: boolean;
}

export function createWakeableLoop(options: {
  /** The NOTIFY channel(s) that wake the loop (the webhook worker hears two). */
  channel: string | readonly string[];
  /** One pass; resolves to the milliseconds to sleep before the next (0: at once). */
  pass: () => Promise<number>;
  errorWaitMs: number;
  log: Log;
  /** Names the worker in the log line of a failed pass. */
  name: string;
  /**
   * A wake-up sooner than this after the last pass began waits for the rest of it (0: none).
   * Under load every stored batch sends a NOTIFY; without this the worker would make a pass,
   * two commits, for each. With it a burst becomes one pass that claims them all, while a
   * quiet hub still reacts to the first NOTIFY at once. A pass that asks to go again at
   * once (a full claim) is not held back.
   */
  minIntervalMs?: number;
}): WakeableLoop {
  const minIntervalMs = options.minIntervalMs ?? 0;
  let running = false;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;
  let woken = false;
  let unlisteners: Unlisten[] = [];

  const sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (woken || ms <= 0) {
        woken = false;
        resolve();
        return;
      }
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });

  function wake(): void {
    if (wakeUp) wakeUp();
    else woken = true;
  }

  /** Waits `ms` unless stop() comes first; wake-ups meanwhile stay noted for the next pass. */
  let release: (() => void) | undefined;
  const hold = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        release = undefined;
        resolve();
      }
      release = done;
    });

  async function run(): Promise<void> {
    while (running) {
      const startedAt = performance.now();
      // This pass serves every wake-up so far; only those during it call for another.
      woken = false;
      let waitMs = options.errorWaitMs;
      try {
        waitMs = await options.pass();
      } catch (err) {
        options.log.error({ err }, `${options.name} pass failed; retrying`);
      }
      if (!running || waitMs <= 0) continue;
      await sleep(waitMs);
      const rest = minIntervalMs - (performance.now() - startedAt);
      if (running && rest > 0) await hold(rest);
    }
  }

  return {
    get running() {
      return running;
    },
    wake,
    async start(listen) {
      if (running) return;
      running = true;
      if (listen)
        for (const channel of typeof options.channel === 'string' ? [options.channel] : options.channel) unlisteners.push(await listen(channel, () => wake()));
      loop = run();
    },
    async stop() {
      running = false;
      wake();
      release?.();
      await loop;
      loop = undefined;
      for (const unlisten of unlisteners) await unlisten();
      unlisteners = [];
    },
  };
}
