import t from 'tap';
import { createSocket } from 'node:dgram';
import { startVendorACamera } from '../../../scripts/simulators/vendor-a-camera.ts';
import { createDiscovery } from './discovery.ts';
import { lanInterfaceAddresses } from './lan-interfaces.ts';
import { probeLan } from './probe.ts';

/** A UDP port on loopback where nothing listens. */
async function silentPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

t.test('the probe finds the simulated vendor_a camera over real UDP on loopback', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, wsDiscovery: true });
  t.teardown(() => camera.close());
  const discovery = camera.discovery;
  if (!discovery) throw new Error('simulator started without WS-Discovery');
  const devices = await probeLan({ target: { address: '127.0.0.1', port: discovery.port }, interfaces: ['127.0.0.1'], windowMs: 400 });
  t.equal(devices.length, 1);
  t.match(devices[0], {
    address: '127.0.0.1',
    port: camera.port,
    manufacturer: 'HIKVISION',
    model: 'DS-2CD7A26G0/P-IZHS',
    xaddrs: [`http://127.0.0.1:${camera.port}/onvif/device_service`],
    endpoint: /^urn:uuid:/,
  });
  t.equal(discovery.probes, 1);
});

t.test('nothing answers: an empty list after the window, not an error', async (t) => {
  const devices = await probeLan({ target: { address: '127.0.0.1', port: await silentPort() }, interfaces: ['127.0.0.1'], windowMs: 200 });
  t.same(devices, []);
});

t.test('an interface that cannot be used is skipped, the others still probe', async (t) => {
  const camera = await startVendorACamera({ ratePerSecond: 0, wsDiscovery: true });
  t.teardown(() => camera.close());
  const warnings: string[] = [];
  const devices = await probeLan({
    target: { address: '127.0.0.1', port: camera.discovery?.port ?? 0 },
    interfaces: ['192.0.2.77', '127.0.0.1'], // TEST-NET-1: not an address of this machine
    windowMs: 300,
    log: { warn: (_o, msg) => void warnings.push(msg) },
  });
  t.equal(devices.length, 1);
  t.same(warnings, ['discovery: interface skipped']);
});

t.test('one probe per interval for the whole appliance; answers off the LAN are dropped', async (t) => {
  let now = 1_000_000;
  let probes = 0;
  const discovery = createDiscovery({
    now: () => now,
    interfaces: () => ['192.168.1.10'],
    probe: async () => {
      probes += 1;
      return [
        { endpoint: 'urn:uuid:a', xaddrs: [], address: '192.168.1.64' },
        { endpoint: 'urn:uuid:b', xaddrs: [], address: '8.8.8.8' },
      ];
    },
    minIntervalMs: 10_000,
  });
  const first = await discovery.run();
  t.ok(first.ok);
  t.same(first.ok ? first.result.devices.map((d) => d.address) : [], ['192.168.1.64']);
  now += 4_000;
  const second = await discovery.run();
  t.same(second, { ok: false, retryAfterSeconds: 6, last: first.ok ? first.result : undefined });
  t.equal(probes, 1, 'no second probe went out');
  now += 6_000;
  t.ok((await discovery.run()).ok);
  t.equal(probes, 2);
});

t.test('two clicks at once share one probe', async (t) => {
  let probes = 0;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const discovery = createDiscovery({
    now: () => 0,
    interfaces: () => ['10.0.0.2'],
    probe: async () => {
      probes += 1;
      await gate;
      return [];
    },
  });
  const a = discovery.run();
  const b = discovery.run();
  release();
  t.same((await a).ok, true);
  t.same((await b).ok, true);
  t.equal(probes, 1);
});

t.test('no LAN interface: nothing is sent and the list is empty', async (t) => {
  let probes = 0;
  const discovery = createDiscovery({
    now: () => 0,
    interfaces: () => [],
    probe: async () => {
      probes += 1;
      return [];
    },
  });
  const outcome = await discovery.run();
  t.same(outcome.ok ? outcome.result : undefined, { devices: [], at: 0, interfaces: [] });
  t.equal(probes, 0);
});

t.test('LAN interfaces: private IPv4 only, never loopback or a public address', async (t) => {
  const info = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '', cidr: null });
  t.same(
    lanInterfaceAddresses({
      lo: [info('127.0.0.1', 'IPv4', true)],
      eth0: [info('192.168.1.10', 'IPv4'), info('fe80::1', 'IPv6')],
      eth1: [info('203.0.113.5', 'IPv4')],
      wlan0: [info('10.1.2.3', 'IPv4'), info('169.254.3.4', 'IPv4')],
    } as never),
    ['192.168.1.10', '10.1.2.3', '169.254.3.4'],
  );
});
