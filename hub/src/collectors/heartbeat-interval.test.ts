import t from 'tap';
import { connectivity, heartbeatIntervalSeconds, heartbeatsArriving } from './heartbeat-interval.ts';

const hub = { heartbeatSeconds: 60 };
const now = new Date('2026-01-15T10:00:00.000Z');
const ago = (ms: number): Date => new Date(now.getTime() - ms);

t.test('the interval: a pushed positive integer, else the hub default', async (t) => {
  const cases: [Record<string, unknown>, number][] = [
    [{}, 60],
    [{ heartbeat_interval_seconds: 20 }, 20],
    [{ heartbeat_interval_seconds: 0 }, 60],
    [{ heartbeat_interval_seconds: -5 }, 60],
    [{ heartbeat_interval_seconds: 2.5 }, 60],
    [{ heartbeat_interval_seconds: '20' }, 60],
  ];
  for (const [config, expected] of cases) t.equal(heartbeatIntervalSeconds(hub, config), expected, JSON.stringify(config));
});

t.test("online while the last heartbeat is at most 3 of the collector's own intervals old", async (t) => {
  const cases: [string, { status: string; lastHeartbeatAt: Date | null; config: Record<string, unknown> }, 'online' | 'offline'][] = [
    ['just now', { status: 'active', lastHeartbeatAt: ago(0), config: {} }, 'online'],
    ['default interval, 179.999 s', { status: 'active', lastHeartbeatAt: ago(179_999), config: {} }, 'online'],
    ['default interval, exactly 180 s', { status: 'active', lastHeartbeatAt: ago(180_000), config: {} }, 'online'],
    ['default interval, 180.001 s', { status: 'active', lastHeartbeatAt: ago(180_001), config: {} }, 'offline'],
    ['pushed 20 s, exactly 60 s', { status: 'active', lastHeartbeatAt: ago(60_000), config: { heartbeat_interval_seconds: 20 } }, 'online'],
    ['pushed 20 s, 60.001 s', { status: 'active', lastHeartbeatAt: ago(60_001), config: { heartbeat_interval_seconds: 20 } }, 'offline'],
    ['pushed 300 s, 899 s', { status: 'active', lastHeartbeatAt: ago(899_000), config: { heartbeat_interval_seconds: 300 } }, 'online'],
    ['pushed 300 s, 900.001 s', { status: 'active', lastHeartbeatAt: ago(900_001), config: { heartbeat_interval_seconds: 300 } }, 'offline'],
    ['never sent one', { status: 'active', lastHeartbeatAt: null, config: {} }, 'offline'],
    ['pending', { status: 'pending', lastHeartbeatAt: ago(0), config: {} }, 'offline'],
    ['decommissioned', { status: 'decommissioned', lastHeartbeatAt: ago(0), config: {} }, 'offline'],
  ];
  for (const [name, collector, expected] of cases) t.equal(connectivity(collector, hub, now), expected, name);
});

t.test('a suspended collector is offline, and still heard while its heartbeats arrive', async (t) => {
  const recent = { status: 'disabled', lastHeartbeatAt: ago(30_000), config: {} };
  t.equal(connectivity(recent, hub, now), 'offline', 'it takes no uploads');
  t.equal(heartbeatsArriving(recent, hub, now), true, 'but its box is heard');
  t.equal(heartbeatsArriving({ lastHeartbeatAt: ago(180_000), config: {} }, hub, now), true, 'exactly 3 intervals');
  t.equal(heartbeatsArriving({ lastHeartbeatAt: ago(180_001), config: {} }, hub, now), false, 'one millisecond more');
  t.equal(heartbeatsArriving({ lastHeartbeatAt: null, config: {} }, hub, now), false, 'never heard');
});
