import type { Test } from 'tap';
import type { UplinkConfigInput } from './config.ts';
import type { UplinkLog } from './ports.ts';
import type { UplinkHandle } from './uplink.ts';
import { startUplink } from './uplink.ts';
import { HubDouble } from './hub-double.test-helper.ts';
import { ManualTime } from './manual-time.test-helper.ts';
import { MemoryBuffer } from './memory-buffer.test-helper.ts';

export const KEY = 'alpr_test_key_0123456789abcdef';
export const T0 = Date.UTC(2025, 0, 1);

export interface Harness {
  hub: HubDouble;
  buffer: MemoryBuffer;
  time: ManualTime;
  uplink: UplinkHandle;
  logs: string[];
  setKey(key: string | undefined): void;
  /** Moves the clock by `ms`, letting every pass that a due timer starts finish first. */
  run(ms: number): Promise<void>;
  /** Time left until the backoff lets the next upload out; throws when not backing off. */
  untilRetryMs(): number;
  hubUrl: string;
}

export interface HarnessOptions {
  /** Listen on this port (or don't listen at all when `hubDown`). */
  port?: number;
  hubDown?: boolean;
  random?: number;
  config?: Partial<UplinkConfigInput>;
  /** Fill the buffer before the loop starts. */
  seed?: (buffer: MemoryBuffer) => void;
}

export async function harness(t: Test, options: HarnessOptions = {}): Promise<Harness> {
  const hub = new HubDouble();
  const port = options.hubDown ? (options.port ?? 0) : await hub.listen(options.port ?? 0);
  const hubUrl = `http://127.0.0.1:${port}`;
  const buffer = new MemoryBuffer();
  options.seed?.(buffer);
  const time = new ManualTime(T0);
  hub.now = () => time.now();
  const logs: string[] = [];
  const line = (level: string) => (obj: Record<string, unknown>, msg: string) => {
    logs.push(JSON.stringify({ level, ...obj, msg }));
  };
  const log: UplinkLog = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
  let key: string | undefined = KEY;
  const uplink = startUplink({
    buffer,
    clock: time,
    timers: time,
    random: () => options.random ?? 0.5,
    log,
    config: { hubUrl, apiKey: () => key, timeouts: { headersMs: 2_000, bodyMs: 2_000 }, ...options.config },
  });
  t.teardown(async () => {
    await uplink.stop();
    await hub.close();
  });
  await uplink.idle();
  return {
    hub,
    buffer,
    time,
    uplink,
    logs,
    hubUrl,
    setKey: (next) => {
      key = next;
    },
    untilRetryMs() {
      const retryAtMs = uplink.state().retryAtMs;
      if (retryAtMs === null) throw new Error('the uplink is not backing off');
      return retryAtMs - time.now();
    },
    async run(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`run(${ms}): time only moves forward`);
      const target = time.now() + ms;
      await uplink.idle();
      for (;;) {
        const due = time.nextDueMs();
        if (due === undefined || due > target) break;
        time.advance(Math.max(0, due - time.now()));
        await uplink.idle();
      }
      time.advance(Math.max(0, target - time.now()));
      await uplink.idle();
    },
  };
}
