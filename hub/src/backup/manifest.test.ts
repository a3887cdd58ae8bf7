import t from 'tap';
import { DUMP_FILE, fileProblems, manifestFileSchema } from './manifest.ts';
import { newestMajor } from './pg-tools.ts';

const hash = (c: string): string => c.repeat(64);

t.test('fileProblems names every missing, resized or altered file', async (t) => {
  const expected = [
    { path: DUMP_FILE, bytes: 10, sha256: hash('a') },
    { path: 'images/segments/1.aij', bytes: 5, sha256: hash('b') },
    { path: 'images/store-id', bytes: 37, sha256: hash('c') },
    { path: 'data/hub-secret', bytes: 65, sha256: hash('d') },
  ];
  const found = new Map([
    [DUMP_FILE, { bytes: 10, sha256: hash('a') }],
    ['images/segments/1.aij', { bytes: 6, sha256: hash('b') }],
    ['images/store-id', { bytes: 37, sha256: hash('e') }],
    ['notes.txt', { bytes: 1, sha256: hash('f') }],
  ]);
  t.same(fileProblems(expected, found), [
    'images/segments/1.aij: 6 bytes, the manifest says 5',
    'images/store-id: SHA-256 differs from the manifest',
    'data/hub-secret: missing',
  ]);
  t.same(fileProblems(expected.slice(0, 1), found), [], 'an intact backup has none; files beside it are ignored');
  t.same(fileProblems([], found), [`${DUMP_FILE}: not listed in the manifest`], 'a manifest without the dump is refused');
});

t.test('manifest paths never leave the backup folder', async (t) => {
  for (const path of ['../etc/passwd', '/etc/passwd', 'images/../../x', 'images//x', './x'])
    t.notOk(manifestFileSchema.safeParse({ path, bytes: 1, sha256: hash('a') }).success, path);
  t.ok(manifestFileSchema.safeParse({ path: 'images/ab/cd/x.jpg', bytes: 1, sha256: hash('a') }).success);
});

t.test('the newest installed PostgreSQL major version is used (pg_dump refuses newer servers)', async (t) => {
  t.equal(newestMajor(['9', '15', '17', 'common']), '17');
  t.equal(newestMajor([]), undefined);
});
