/**
 * The demo's "watched cars": a vendor_a camera that now and then posts (multipart, with
 * crop and scene) one of a few plates the demo watchlist holds (bot-setup.ts), so a
 * newcomer sees alerts on the live page and messages at the simulated bot. Every plate
 * comes round about every 10 minutes, the bot's default per-plate cooldown.
 */
import { plateCropJpeg, sceneJpeg } from '../simulators/draw-plate.ts';
import { createRng, uuidFrom, type PlateRead } from '../simulators/plates.ts';
import { pushRead } from '../simulators/vendor-a-push.ts';

export const WATCHED_PLATES = [
  'WA7CH01',
  'WA7CH02',
  'WA7CH03',
  'WA7CH04',
  'WA7CH05',
  'WA7CH06',
  'WA7CH07',
  'WA7CH08',
  'WA7CH09',
  'WA7CH10',
  'WA7CH11',
  'WA7CH12',
  'WA7CH13',
  'WA7CH14',
  'WA7CH15',
] as const;

export function startWatchedCars(options: { pushUrl: string; everyMs?: number }): { close(): void } {
  const rng = createRng(99);
  const closing = new AbortController();
  let n = 0;
  const pass = (): void => {
    const plate = WATCHED_PLATES[n % WATCHED_PLATES.length] as string;
    const timeMs = Date.now();
    // Pictures of this plate on a car picked by the seed, at their drawn size (a few kB):
    // the live page, the bot's photo and the detection page show the plate that matched.
    const seed = Math.floor(rng() * 2 ** 32);
    const read: PlateRead = {
      seq: n++,
      plate,
      unknown: false,
      timeMs,
      confidence: 80 + Math.floor(rng() * 19),
      direction: 'forward',
      vehicleType: 'vehicle',
      color: 'gray',
      brandCode: 1036,
      crop: plateCropJpeg(plate, { seed }),
      scene: sceneJpeg(plate, { seed, caption: new Date(timeMs).toISOString().slice(0, 19).replace('T', ' ') }),
    };
    void pushRead(
      read,
      uuidFrom(rng),
      {
        url: options.pushUrl,
        format: 'multipart',
        retries: 3,
        retryDelayMs: 1000,
        emptyImageRate: 0,
        timeoutMs: 5000,
        timezone: 'UTC',
        mac: '02:00:00:00:00:cc',
        channelId: 1,
        signal: closing.signal,
      },
      rng,
    );
  };
  const first = setTimeout(pass, 20_000);
  const timer = setInterval(pass, options.everyMs ?? 40_000);
  return {
    close() {
      clearTimeout(first);
      clearInterval(timer);
      closing.abort();
    },
  };
}
