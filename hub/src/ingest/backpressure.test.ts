import t from 'tap';
import { decideBackpressure } from './backpressure.ts';
import { createLoadMonitor } from './load-monitor.ts';

const calm = { dbWriteLatencyMs: 20, queueDepth: 10, imageStoreLatencyMs: 5, cpuPercent: 10 };

t.test('no trigger, no backpressure', async (t) => {
  t.equal(decideBackpressure(calm), undefined);
  t.equal(
    decideBackpressure({ ...calm, dbWriteLatencyMs: 500, queueDepth: 10_000, imageStoreLatencyMs: 1000, cpuPercent: 80 }),
    undefined,
    'thresholds are strict "above"',
  );
});

t.test('each spec trigger with its delay', async (t) => {
  const cases = [
    [{ dbWriteLatencyMs: 501 }, 10, 'db_write_latency'],
    [{ queueDepth: 10_001 }, 30, 'queue_depth'],
    [{ imageStoreLatencyMs: 1001 }, 15, 'image_store_latency'],
    [{ cpuPercent: 81 }, 20, 'high_cpu'],
  ] as const;
  for (const [change, delay, reason] of cases) {
    t.same(decideBackpressure({ ...calm, ...change }), { active: true, recommended_delay_seconds: delay, reason }, reason);
  }
});

t.test('several triggers: longest delay, all reasons', async (t) => {
  t.same(decideBackpressure({ ...calm, dbWriteLatencyMs: 900, cpuPercent: 95 }), {
    active: true,
    recommended_delay_seconds: 20,
    reason: 'db_write_latency,high_cpu',
  });
});

t.test('load monitor smooths latencies and accepts injected measurements', async (t) => {
  const monitor = createLoadMonitor(() => 12);
  monitor.observeDbWrite(100);
  monitor.observeDbWrite(200);
  t.equal(monitor.measurements().dbWriteLatencyMs, 120);
  monitor.setQueueDepth(42);
  t.equal(monitor.measurements().queueDepth, 42);
  monitor.override({ cpuPercent: 99 });
  t.equal(monitor.measurements().cpuPercent, 99);
  monitor.override(undefined);
  t.equal(monitor.measurements().cpuPercent, 12);
});
