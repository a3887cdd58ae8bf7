import type { AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { addRead, cameraOf, firstIssue, readJsonObject, readerTime, sourceIdOf } from '../reader/common.ts';
import { batchSchema, readSchema } from './schema.ts';

export const SOURCE = 'generic_json';

export function parseGenericJson(input: ParseInput, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const object = readJsonObject(input);
  if (!object.ok) return { ...outcome, failure: object.reason };
  let items: unknown[] = [object.value];
  if ('reads' in object.value) {
    const batch = batchSchema.safeParse(object.value);
    if (!batch.success) return { ...outcome, failure: firstIssue(batch.error, 'body') };
    items = batch.data.reads;
  }
  items.forEach((raw, item) => {
    const read = readSchema.safeParse(raw);
    if (!read.success) {
      outcome.errors.push({ item, reason: firstIssue(read.error, items.length > 1 ? `reads[${item}]` : 'read') });
      return;
    }
    const r = read.data;
    const camera = cameraOf(SOURCE, r.camera, context);
    addRead(
      outcome,
      item,
      {
        vendor: SOURCE,
        sourceId: sourceIdOf(SOURCE, r.id),
        timestamp: readerTime(r.time, context.timezone),
        cameraId: camera.id,
        cameraMac: camera.mac,
        plateText: r.plate,
        confidence: r.confidence,
        region: r.region,
        direction: r.direction,
        vehicleType: r.vehicle_type,
        color: r.color,
        brand: r.make,
        model: r.model,
      },
      { plate: r.plate },
    );
  });
  return outcome;
}

/** Never picked by the `auto` route: any JSON with a `plate` could look like it. Named only. */
export const recognizesGenericJson = (): boolean => false;
