import t from 'tap';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cameraConfigSchema } from './config.ts';
import { ffmpegArgs, openRtspSource, redacted, rtspUrlWithLogin, splitJpegs } from './rtsp-frames.ts';

t.test('JPEGs are cut out of the ffmpeg pipe whole; a partial one waits for the rest', async (t) => {
  const a = Buffer.from([0xff, 0xd8, 1, 2, 0xff, 0x00, 0xff, 0xd9]);
  const b = Buffer.from([0xff, 0xd8, 3, 0xff, 0xd9]);
  const { frames, rest } = splitJpegs(Buffer.concat([a, b, Buffer.from([0xff, 0xd8, 9])]));
  t.same(
    frames.map((f) => [...f]),
    [[...a], [...b]],
  );
  t.same([...rest], [0xff, 0xd8, 9]);
  t.same([...splitJpegs(Buffer.from([1, 2, 3])).rest], [], 'noise before any picture is dropped');
});

t.test('ffmpeg arguments, and the URL without its password', async (t) => {
  t.same(ffmpegArgs('rtsp://cam/s1', 4).slice(-9), ['-an', '-vf', 'fps=4', '-f', 'image2pipe', '-c:v', 'mjpeg', '-q:v', '4', 'pipe:1'].slice(-9));
  t.equal(redacted('rtsp://admin:secret@10.0.0.5:554/s1'), 'rtsp://admin:***@10.0.0.5:554/s1');
});

t.test('no ffmpeg on this device: a clear error, not a crash', async (t) => {
  const config = cameraConfigSchema.parse({ id: 'rtsp-cam', vendor: 'snapshot', mode: 'pull', rtspUrl: 'rtsp://127.0.0.1:1/none', requestTimeoutMs: 2_000 });
  const source = openRtspSource(config, 'ffmpeg-is-not-installed-here');
  await t.rejects(source.frame(), /rtspUrl needs ffmpeg, which is not installed on this device/);
  await source.close();
});

t.test('a login kept apart from the URL (a camera from the hub) is put into the URL ffmpeg opens, and never shown', async (t) => {
  t.equal(rtspUrlWithLogin({ rtspUrl: 'rtsp://10.0.0.5:554/s1' }), 'rtsp://10.0.0.5:554/s1', 'no login: as it is');
  t.equal(
    rtspUrlWithLogin({ rtspUrl: 'rtsp://10.0.0.5:554/s1', username: 'view er', password: 'p@ss:w/rd' }),
    'rtsp://view%20er:p%40ss%3Aw%2Frd@10.0.0.5:554/s1',
    'encoded, so an @ or : in the password cannot move the host',
  );
  t.equal(
    rtspUrlWithLogin({ rtspUrl: 'rtsp://own:login@10.0.0.5/s1', username: 'other', password: 'x' }),
    'rtsp://own:login@10.0.0.5/s1',
    "the URL's own login wins",
  );
  t.equal(redacted('rtsp://view%20er:p%40ss%3Aw%2Frd@10.0.0.5:554/s1'), 'rtsp://view%20er:***@10.0.0.5:554/s1');

  // A stand-in ffmpeg that notes the URL it was given and fails the way ffmpeg does, naming it.
  const dir = await mkdtemp(join(tmpdir(), 'rtsp-login-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const noted = join(dir, 'input-url');
  const fake = join(dir, 'ffmpeg');
  await writeFile(fake, `#!/bin/sh\nwhile [ "$1" != "-i" ]; do shift; done\nprintf '%s' "$2" > '${noted}'\necho "$2: 401 Unauthorized" >&2\nexit 1\n`);
  await chmod(fake, 0o755);
  const config = cameraConfigSchema.parse({
    id: 'rtsp-cam',
    vendor: 'snapshot',
    mode: 'pull',
    rtspUrl: 'rtsp://127.0.0.1:1/s1',
    username: 'viewer',
    password: 'Hub-sealed-pw',
    requestTimeoutMs: 2_000,
  });
  const source = openRtspSource(config, fake);
  const failed = await source.frame().then(
    () => 'a frame',
    (error: Error) => error.message,
  );
  await source.close();
  t.equal(await readFile(noted, 'utf8'), 'rtsp://viewer:Hub-sealed-pw@127.0.0.1:1/s1', 'ffmpeg was given the login');
  t.match(failed, /ffmpeg stopped reading rtsp:\/\/viewer:\*\*\*@127\.0\.0\.1:1\/s1 \(exit 1\): rtsp:\/\/viewer:\*\*\*@127\.0\.0\.1:1\/s1: 401 Unauthorized/);
  t.notMatch(failed, /Hub-sealed-pw/, "the password is not in the camera's error, not even where ffmpeg echoed it");
  t.notMatch(source.url(), /Hub-sealed-pw/, 'nor in the URL the status page shows');
});
