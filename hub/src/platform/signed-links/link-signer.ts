import { authKeys } from '../secrets/hub-secret.ts';
import type { HubConfig } from '../config/hub-config.ts';
import type { LinkSigner } from './signed-link.ts';

/** The hub's link signer at `now`: the image-link key derived from the hub secret, the public URL. */
export function linkSigner(config: HubConfig, now: Date): LinkSigner {
  return { key: authKeys(config).imageLinkKey, baseUrl: config.publicUrl, now };
}
