import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { ApplianceError } from '../errors.ts';
import type { CameraConfig } from './config.ts';
import type { SnapshotSource } from './snapshot-source.ts';

/**
 * Frames from an RTSP stream through ffmpeg (Debian's `ffmpeg` package), for cameras whose
 * snapshot URL is slow or missing: ffmpeg decodes the stream and writes JPEGs at the camera's
 * rate to a pipe; the newest whole one is the next frame. Without ffmpeg on PATH the camera goes
 * OFFLINE with an error that says so (docs/ordinary-cameras.md "RTSP").
 */

/** A frame larger than this means the pipe lost its place; the buffer is dropped. */
const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** Whole JPEGs (SOI FF D8 … EOI FF D9) at the start of `buffer`, and what is left after them. */
export function splitJpegs(buffer: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let from = 0;
  for (;;) {
    const start = buffer.indexOf(Buffer.from([0xff, 0xd8]), from);
    if (start < 0) return { frames, rest: Buffer.alloc(0) };
    // Inside entropy-coded data a 0xFF byte is always followed by 0x00 (byte stuffing), so the
    // first FF D9 after the start is this picture's end (ffmpeg's mjpeg output has no thumbnail).
    const end = buffer.indexOf(Buffer.from([0xff, 0xd9]), start + 2);
    if (end < 0) return { frames, rest: buffer.subarray(start) };
    frames.push(buffer.subarray(start, end + 2));
    from = end + 2;
  }
}

export function ffmpegArgs(url: string, framesPerSecond: number): string[] {
  return [
    '-nostdin',
    '-loglevel',
    'error',
    '-rtsp_transport',
    'tcp',
    '-i',
    url,
    '-an',
    '-vf',
    `fps=${framesPerSecond}`,
    '-f',
    'image2pipe',
    '-c:v',
    'mjpeg',
    '-q:v',
    '4',
    'pipe:1',
  ];
}

/**
 * The URL ffmpeg is given: the camera's `username`/`password` put into it when it has no login of
 * its own. Cameras managed on the hub come this way: the hub keeps the login out of the URL, in its
 * escrow, and sends it sealed to this device (docs/cameras-central.md "Credentials").
 */
export function rtspUrlWithLogin(config: Pick<CameraConfig, 'rtspUrl' | 'username' | 'password'>): string {
  const url = config.rtspUrl ?? '';
  if (config.username === undefined || /^[a-z]+:\/\/[^/?#]*@/i.test(url)) return url;
  const login = `${encodeURIComponent(config.username)}:${encodeURIComponent(config.password ?? '')}@`;
  return url.replace(/^([a-z]+:\/\/)/i, `$1${login}`);
}

export function openRtspSource(config: CameraConfig, command = 'ffmpeg'): SnapshotSource {
  const url = rtspUrlWithLogin(config);
  let child: ChildProcess | undefined;
  let latest: Uint8Array | undefined;
  let failure: string | undefined;
  let waiting: (() => void) | undefined;
  let closed = false;

  const start = (): void => {
    failure = undefined;
    let pending = Buffer.alloc(0);
    let stderr = '';
    const proc = spawn(command, ffmpegArgs(url, config.framesPerSecond), { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      const { frames, rest } = splitJpegs(pending);
      pending = rest.length > MAX_FRAME_BYTES ? Buffer.alloc(0) : Buffer.from(rest);
      const last = frames[frames.length - 1];
      if (last) {
        latest = new Uint8Array(last);
        waiting?.();
      }
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-500);
    });
    proc.on('error', (error: NodeJS.ErrnoException) => {
      failure =
        error.code === 'ENOENT'
          ? `rtspUrl needs ffmpeg, which is not installed on this device (Debian: apt install ffmpeg); or set snapshotUrl instead`
          : `ffmpeg could not start: ${error.message}`;
      child = undefined;
      waiting?.();
    });
    proc.on('exit', (code) => {
      if (child === proc) child = undefined;
      // ffmpeg names the input URL in its errors: the password goes before the message is kept.
      if (!closed && failure === undefined)
        failure = `ffmpeg stopped reading ${redacted(url)} (exit ${code ?? 'signal'}): ${redacted(stderr.trim()) || 'no message'}`;
      waiting?.();
    });
  };

  return {
    url: () => redacted(url),
    async frame() {
      if (closed) throw new ApplianceError('camera_unreachable', 'camera stopped');
      if (!child && failure === undefined) start();
      const deadline = Date.now() + Math.max(config.requestTimeoutMs, 5_000);
      while (latest === undefined && failure === undefined && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          waiting = resolve;
          setTimeout(resolve, 250).unref();
        });
      }
      if (failure !== undefined) {
        const message = failure;
        // The next attempt (after the runner's backoff) starts ffmpeg again.
        failure = undefined;
        throw new ApplianceError('camera_unreachable', message);
      }
      const frame = latest;
      latest = undefined;
      if (frame === undefined) throw new ApplianceError('camera_unreachable', `no frame from ${redacted(url)} within ${config.requestTimeoutMs} ms`);
      return frame;
    },
    async close() {
      closed = true;
      child?.kill('SIGTERM');
      child = undefined;
    },
  };
}

/** The stream URL without its password, for logs and the status page. */
export const redacted = (url: string): string => url.replace(/\/\/([^:/@\s]+):[^@/\s]*@/g, '//$1:***@');
