import type { CameraIdentity } from '@alpr/shared/adapters/types';
import type { CameraConfig } from '../cameras/config.ts';

/**
 * The camera type of a buffered detection's `camera.id`, for the uplink's per-type batch
 * window (`[uplink] window_seconds_by_camera_type`, e.g. `{ vendor_a = 5, vendor_b = 30 }`).
 * A camera's type is its `cameraType` when set, else its vendor. Pure.
 *
 * Buffered ids are not always configured ids: a vendor_b console entry fronts several NVR
 * cameras whose detections carry the NVR camera id. Those map through the entry that lists
 * them in `cameraIds`, else through the consoles' bootstraps (`vendorBIds`) when every
 * unfiltered vendor_b entry agrees on one type. Anything else (an unknown push camera) has
 * no type: the default window.
 */
export const cameraTypeOf = (camera: CameraConfig): string => camera.cameraType ?? camera.vendor;

export function cameraTypeLookup(
  cameras: readonly CameraConfig[],
  vendorBIds: () => ReadonlyMap<string, CameraIdentity>,
): (cameraId: string) => string | undefined {
  return (cameraId) => {
    const direct = cameras.find((c) => c.id === cameraId);
    if (direct) return cameraTypeOf(direct);
    const listing = cameras.find((c) => c.vendor === 'vendor_b' && c.cameraIds?.includes(cameraId));
    if (listing) return cameraTypeOf(listing);
    if (!vendorBIds().has(cameraId)) return undefined;
    const types = new Set(cameras.filter((c) => c.vendor === 'vendor_b' && c.cameraIds === undefined).map(cameraTypeOf));
    return types.size === 1 ? [...types][0] : undefined;
  };
}
