import t from 'tap';
import { isLoopbackHost } from './loopback.ts';

t.test('loopback hosts: the only ones served in plain HTTP', async (t) => {
  for (const host of ['127.0.0.1', '127.8.9.10', 'localhost', 'LOCALHOST', '::1', '[::1]', '::ffff:127.0.0.1']) t.ok(isLoopbackHost(host), host);
  for (const host of ['0.0.0.0', '::', '192.168.1.2', 'hub.example.com', '127.0.0.256', '128.0.0.1', 'localhost.example.com', ''])
    t.notOk(isLoopbackHost(host), host);
});
