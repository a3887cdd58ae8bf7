import { openFrameReader } from '../reader/open-reader.ts';
import type { FrameReader } from '../reader/types.ts';

/**
 * The appliance's one plate reader, shared by every ordinary camera and kept across pipeline
 * restarts (a `config_update` restarts the cameras, not the models). Opened on the first frame
 * read, so a device with no ordinary camera never loads the models (about 100 MB of memory).
 */
export function lazyFrameReader(open: () => Promise<FrameReader> = () => openFrameReader()): FrameReader {
  let opened: Promise<FrameReader> | undefined;
  return {
    async read(jpeg, options) {
      opened ??= open();
      return (await opened).read(jpeg, options);
    },
    async close() {
      const reader = opened;
      opened = undefined;
      if (reader) await (await reader).close();
    },
  };
}
