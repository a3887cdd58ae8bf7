import { normalizeConfidence, normalizeVehicleType } from '../../detection/normalize.ts';
import type { AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { addRead, cameraOf, firstIssue, readJsonObject, readerTime, sourceIdOf } from '../reader/common.ts';
import { groupSchema, resultSchema, resultsSchema } from './schema.ts';

export const SOURCE = 'openalpr';

/** Messages the agent sends that hold no read (docs/camera-formats.md "OpenALPR agent"). */
const NOT_READS: ReadonlySet<string> = new Set(['heartbeat', 'vehicle']);

/** `site/camera`: the agent numbers its streams per site, so camera 1 of two sites are two cameras. */
const cameraName = (site: string | null | undefined, camera: string | null | undefined): string | undefined =>
  camera ? (site ? `${site}/${camera}` : camera) : undefined;

function parseGroup(value: unknown, context: AdapterContext, outcome: ParseOutcome): ParseOutcome {
  const parsed = groupSchema.safeParse(value);
  if (!parsed.success) return { ...outcome, failure: firstIssue(parsed.error, 'alpr_group') };
  const g = parsed.data;
  const camera = cameraOf(SOURCE, cameraName(g.site_id ?? g.agent_uid, g.camera_id), context);
  addRead(
    outcome,
    0,
    {
      vendor: SOURCE,
      sourceId: sourceIdOf(SOURCE, g.best_uuid),
      // The best frame's time when the agent says it, else the group's first frame.
      timestamp: readerTime(g.best_uuid_epoch_ms ?? g.epoch_start),
      cameraId: camera.id,
      cameraMac: camera.mac,
      plateText: g.best_plate_number ?? undefined,
      confidence: normalizeConfidence(g.best_confidence, 'percent'),
      region: g.best_region ?? g.best_plate?.region ?? undefined,
      vehicleType: normalizeVehicleType(g.vehicle?.body_type?.[0]?.name),
      color: g.vehicle?.color?.[0]?.name ?? undefined,
      brand: g.vehicle?.make?.[0]?.name ?? undefined,
    },
    { plate: g.best_plate_number ?? '', data_type: 'alpr_group' },
  );
  return outcome;
}

function parseResults(value: unknown, context: AdapterContext, outcome: ParseOutcome): ParseOutcome {
  const parsed = resultsSchema.safeParse(value);
  if (!parsed.success) return { ...outcome, failure: firstIssue(parsed.error, 'alpr_results') };
  const frame = parsed.data;
  const camera = cameraOf(SOURCE, cameraName(frame.site_id ?? frame.agent_uid, frame.camera_id), context);
  frame.results.forEach((raw, item) => {
    const r = resultSchema.safeParse(raw);
    if (!r.success) {
      outcome.errors.push({ item, reason: firstIssue(r.error, `results[${item}]`) });
      return;
    }
    addRead(
      outcome,
      item,
      {
        vendor: SOURCE,
        sourceId: frame.uuid ? sourceIdOf(SOURCE, `${frame.uuid}-${item}`) : undefined,
        timestamp: readerTime(r.data.epoch_time ?? frame.epoch_time),
        cameraId: camera.id,
        cameraMac: camera.mac,
        plateText: r.data.plate ?? undefined,
        confidence: normalizeConfidence(r.data.confidence, 'percent'),
        region: r.data.region ?? undefined,
        candidates: (r.data.candidates ?? []).map((c) => ({ text: c.plate, confidence: normalizeConfidence(c.confidence, 'percent') })),
      },
      { plate: r.data.plate ?? '', data_type: 'alpr_results' },
    );
  });
  return outcome;
}

export function parseOpenAlpr(input: ParseInput, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const object = readJsonObject(input);
  if (!object.ok) return { ...outcome, failure: object.reason };
  const type = object.value.data_type;
  if (type === 'alpr_group') return parseGroup(object.value, context, outcome);
  if (typeof type === 'string' && NOT_READS.has(type)) {
    outcome.ignored += 1;
    return outcome;
  }
  if (type === undefined || type === 'alpr_results') return parseResults(object.value, context, outcome);
  return { ...outcome, failure: `unknown OpenALPR data_type ${String(type).slice(0, 40)}` };
}

export function recognizesOpenAlpr(input: ParseInput): boolean {
  const object = readJsonObject(input);
  if (!object.ok) return false;
  const type = object.value.data_type;
  return type === 'alpr_group' || type === 'alpr_results' || type === 'heartbeat';
}
