import type { CameraConfig } from '../cameras/config.ts';
import { openRtspSource } from '../cameras/rtsp-frames.ts';
import { openSnapshotSource } from '../cameras/snapshot-source.ts';
import type { FrameReader, PlateRead } from '../reader/types.ts';
import type { ProbeReport } from './probe.ts';

/**
 * "Test" of an ordinary camera on the setup page (docs/ordinary-cameras.md "Aiming the camera"):
 * one frame taken as the runner takes them, read by this device's plate reader, and shown with
 * the plate boxes drawn over it and what was read, so the installer can aim and zoom the camera
 * until the plate is found and read. Never throws.
 */

export interface FrameTest {
  jpeg: Uint8Array;
  width: number;
  height: number;
  plates: PlateRead[];
  ms: number;
}

/** The page waits for the frame and the read; a first read also loads the models (a few seconds). */
const READ_TIMEOUT_MS = 60_000;

export async function probeSnapshotCamera(camera: CameraConfig, reader: FrameReader | undefined): Promise<{ report: ProbeReport; frame?: FrameTest }> {
  const config = { ...camera, requestTimeoutMs: Math.min(camera.requestTimeoutMs, 5_000) };
  const source = config.rtspUrl !== undefined ? openRtspSource(config) : openSnapshotSource(config);
  const fail = (summary: string): { report: ProbeReport } => ({ report: { cameraId: camera.id, url: source.url() ?? '', ok: false, summary, facts: [] } });
  let jpeg: Uint8Array;
  try {
    jpeg = await source.frame();
  } catch (error) {
    return fail(`No frame: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await source.close();
  }
  const url = source.url() ?? '';
  if (!reader)
    return {
      report: {
        cameraId: camera.id,
        url,
        ok: false,
        summary: 'A frame came, but this device has no plate reader installed.',
        facts: [['Frame', `${Math.round(jpeg.length / 1024)} kB`]],
      },
    };
  try {
    const timeout = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`no answer from the reader within ${READ_TIMEOUT_MS / 1000} s`)), READ_TIMEOUT_MS).unref(),
    );
    const result = await Promise.race([reader.read(jpeg, camera.region !== undefined ? { region: camera.region } : {}), timeout]);
    const read = result.plates.map((p) => `${p.plate} (${Math.round(p.confidence * 100)} %)`).join(', ');
    const report: ProbeReport = {
      cameraId: camera.id,
      url,
      ok: true,
      summary: result.plates.length > 0 ? `Frame read: ${read}` : 'Frame taken; no plate found in it. Aim or zoom so a plate is at least 100 pixels wide.',
      facts: [
        ['Frame', `${result.width}x${result.height}, ${Math.round(jpeg.length / 1024)} kB`],
        ['Reader time', `${Math.round(result.ms)} ms`],
        ...result.plates.map((p): [string, string] => [`Plate at ${p.box.x},${p.box.y} (${p.box.width}x${p.box.height} px)`, p.plate]),
      ],
    };
    return { report, frame: { jpeg, width: result.width, height: result.height, plates: result.plates, ms: result.ms } };
  } catch (error) {
    return {
      report: { cameraId: camera.id, url, ok: false, summary: `Frame taken, not read: ${error instanceof Error ? error.message : String(error)}`, facts: [] },
    };
  }
}
