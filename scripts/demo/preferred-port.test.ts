import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startVendorACamera } from '../simulators/vendor-a-camera.ts';
import { demoPort, startOnPreferredPort } from './preferred-port.ts';

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

t.test('a simulated camera keeps its port across restarts, and falls back when it is taken', async (t) => {
  const preferred = await freePort();
  const first = await startOnPreferredPort(preferred, (port) => startVendorACamera({ port, ratePerSecond: 0 }));
  t.equal(first.handle.port, preferred, 'the preferred port');
  t.equal(first.fellBack, undefined);
  await first.handle.close();
  const again = await startOnPreferredPort(preferred, (port) => startVendorACamera({ port, ratePerSecond: 0 }));
  t.equal(again.handle.port, preferred, 'the same port after a restart: a camera added on the hub still answers');
  t.equal(again.handle.url, `http://127.0.0.1:${preferred}`);

  // Held by someone else: another free port, and the reason to print.
  const other = await startOnPreferredPort(preferred, (port) => startVendorACamera({ port, ratePerSecond: 0 }));
  t.teardown(() => other.handle.close());
  t.not(other.handle.port, preferred, 'a free port instead');
  t.match(other.fellBack, `port ${preferred} is taken (EADDRINUSE)`);
  await again.handle.close();
});

t.test('any other failure is not hidden by a fallback', async (t) => {
  await t.rejects(
    startOnPreferredPort(1, async () => Promise.reject(new Error('bad options'))),
    /bad options/,
  );
});

t.test('ports from the environment', async (t) => {
  t.equal(demoPort({}, 'DEMO_CAMERA_PORT', 8081), 8081, 'the default');
  t.equal(demoPort({ DEMO_CAMERA_PORT: '' }, 'DEMO_CAMERA_PORT', 8081), 8081, 'empty is the default');
  t.equal(demoPort({ DEMO_CAMERA_PORT: '9100' }, 'DEMO_CAMERA_PORT', 8081), 9100);
  for (const bad of ['0', '65536', 'abc', '80.5'])
    t.throws(() => demoPort({ DEMO_CAMERA_PORT: bad }, 'DEMO_CAMERA_PORT', 8081), /DEMO_CAMERA_PORT: a port from 1 to 65535/, bad);
});
