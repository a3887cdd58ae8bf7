import type { ImageStore } from './images/image-store.ts';
import type { LoadMonitor } from './ingest/load-monitor.ts';
import type { UploadLoad } from './ingest/load-record.ts';
import type { PlatformDeps } from './platform/deps.ts';

/**
 * Everything the hub process hands its domains, composed at the root: the platform's parts
 * plus the image store and the load monitor, which only ingest, images, evidence, retention
 * and metrics use. Domains never import this type; they name the narrower set they need.
 */
export interface HubDeps extends PlatformDeps {
  images: ImageStore;
  load: LoadMonitor;
  /** Upload counts per collector and minute, held for a second (ingest/load-record.ts); ingest's routes create it when unset. */
  uploadLoad?: UploadLoad;
}
