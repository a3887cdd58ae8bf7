import t from 'tap';
import { cameraConfigSchema } from './config.ts';
import { ffmpegArgs, openRtspSource, redacted, splitJpegs } from './rtsp-frames.ts';

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
