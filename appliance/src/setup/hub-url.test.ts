import t from 'tap';
import { checkHubUrl } from './hub-url.ts';

t.test('hub URL rules', async (t) => {
  t.same(checkHubUrl(' https://hub.example.com/ '), { ok: true, url: 'https://hub.example.com' });
  t.same(checkHubUrl('https://hub.example.com:8443/alpr/'), { ok: true, url: 'https://hub.example.com:8443/alpr' });
  t.same(checkHubUrl('http://127.0.0.1:3000'), { ok: true, url: 'http://127.0.0.1:3000' });
  t.same(checkHubUrl('http://localhost:3000'), { ok: true, url: 'http://localhost:3000' });
  t.same(checkHubUrl('http://[::1]:3000'), { ok: true, url: 'http://[::1]:3000' });
  t.match(checkHubUrl('http://hub.example.com'), { ok: false, message: /Plain http:\/\/ to hub\.example\.com is refused: the hub URL must use https:\/\// });
  t.match(checkHubUrl('http://192.168.1.10:3000'), { ok: false, message: /refused/ }, 'a LAN hub too: no switch lets plain http through');
  t.match(checkHubUrl('ftp://hub.example.com'), { ok: false });
  t.match(checkHubUrl('hub.example.com'), { ok: false, message: /not a URL/ });
  t.match(checkHubUrl('https://user:pw@hub.example.com'), { ok: false });
  t.match(checkHubUrl('https://hub.example.com/?x=1'), { ok: false });
});
