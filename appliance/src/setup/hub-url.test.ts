import t from 'tap';
import { checkHubUrl } from './hub-url.ts';

t.test('hub URL rules', async (t) => {
  const strict = { allowPlainHttp: false };
  t.same(checkHubUrl(' https://hub.example.com/ ', strict), { ok: true, url: 'https://hub.example.com' });
  t.same(checkHubUrl('https://hub.example.com:8443/alpr/', strict), { ok: true, url: 'https://hub.example.com:8443/alpr' });
  t.same(checkHubUrl('http://127.0.0.1:3000', strict), { ok: true, url: 'http://127.0.0.1:3000' });
  t.same(checkHubUrl('http://localhost:3000', strict), { ok: true, url: 'http://localhost:3000' });
  t.same(checkHubUrl('http://[::1]:3000', strict), { ok: true, url: 'http://[::1]:3000' });
  t.match(checkHubUrl('http://hub.example.com', strict), { ok: false, message: /https/ });
  t.same(checkHubUrl('http://192.168.1.10:3000', { allowPlainHttp: true }), { ok: true, url: 'http://192.168.1.10:3000' });
  t.match(checkHubUrl('ftp://hub.example.com', strict), { ok: false });
  t.match(checkHubUrl('hub.example.com', strict), { ok: false, message: /not a URL/ });
  t.match(checkHubUrl('https://user:pw@hub.example.com', strict), { ok: false });
  t.match(checkHubUrl('https://hub.example.com/?x=1', strict), { ok: false });
});
