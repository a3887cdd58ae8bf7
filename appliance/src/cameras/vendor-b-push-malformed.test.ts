import t from 'tap';
import { MALFORMED_PACKETS } from '@alpr/shared/adapters/vendor-b/captured-packets.test-helper';
import { startVendorBNvr } from '../../../scripts/simulators/vendor-b-nvr.ts';
import { cameraConfigSchema } from './config.ts';
import { memoryDeps, until } from './memory.test-helper.ts';
import { startVendorBPush } from './vendor-b-push.ts';

/**
 * The runtime side of the parse command's "cannot be parsed": a packet whose header lengths
 * disagree with its size is counted, logged with its reason and dropped, and the socket
 * stays open (no reconnect), so the reads that follow arrive over the same connection.
 */
t.test('malformed updates packets are dropped with a warning; the socket stays up and later reads arrive', async (t) => {
  const nvr = await startVendorBNvr({
    seed: 41,
    ratePerSecond: 0,
    plateDelayMs: 20,
    endDelayMs: 40,
    motionRate: 0,
    legacyRate: 0,
    cropBytes: 300,
    sceneBytes: 600,
    thumbnailRatePerSecond: 100,
  });
  t.teardown(() => nvr.close());
  const deps = memoryDeps();
  const config = cameraConfigSchema.parse({
    id: 'nvr-ws',
    vendor: 'vendor_b',
    mode: 'push',
    host: '127.0.0.1',
    port: nvr.port,
    tls: false,
    token: 'sim-token',
    backoffBaseMs: 10,
    backoffCapMs: 80,
    thumbnailsPerSecond: 50,
  });
  const runner = startVendorBPush(config, deps);
  t.teardown(() => runner.stop());
  t.ok(await until(() => runner.status().state === 'ONLINE'), 'connected');

  for (const bad of MALFORMED_PACKETS) nvr.sendRaw(bad.bytes);
  t.ok(await until(() => runner.status().counters.errors >= MALFORMED_PACKETS.length), 'every malformed packet counted as an error');

  nvr.addReads(3);
  await nvr.idle();
  const expected = nvr.delivered.filter((d) => !d.unknown);
  t.ok(await deps.sink.waitFor(expected.length, 15_000), 'reads after the bad packets arrived');
  t.same(deps.sink.ids().sort(), expected.map((d) => d.detectionId).sort());

  const status = runner.status();
  t.equal(status.state, 'ONLINE', 'still online');
  t.equal(status.counters.reconnects, 0, 'the socket was never dropped');
  const reasons = deps.log.entries.filter((e) => e.msg === 'unparseable detection skipped').map((e) => String(e.obj['reason']));
  for (const bad of MALFORMED_PACKETS)
    t.ok(
      reasons.some((r) => bad.reason.test(r)),
      `${bad.name}: logged with its reason`,
    );
});
