import { normalizeConfidence } from '../../detection/normalize.ts';
import type { AdapterContext, ParseInput, ParseOutcome } from '../types.ts';
import { emptyOutcome } from '../types.ts';
import { addRead, cameraOf, firstIssue, readJsonObject, readerTime } from '../reader/common.ts';
import { answerSchema, predictionSchema, relaySchema } from './schema.ts';

export const SOURCE = 'codeproject_ai';

/** `Mon, 14 Oct 2024 18:04:11 GMT` or `Mon 14 Oct 2024 18:04:11 GMT`: read strictly, nothing else. */
const HTTP_DATE = /^[A-Z][a-z]{2},? (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function httpDate(text: string | null | undefined): Date | undefined {
  const m = text ? HTTP_DATE.exec(text) : null;
  if (!m) return undefined;
  const month = MONTHS.indexOf(m[2] as string);
  if (month < 0) return undefined;
  const date = new Date(Date.UTC(Number(m[3]), month, Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6])));
  // Date.UTC rolls 31 Feb over into March: such a date is refused, not moved.
  if (date.getUTCDate() !== Number(m[1]) || date.getUTCHours() !== Number(m[4]) || date.getUTCMinutes() !== Number(m[5])) return undefined;
  return readerTime(date.getTime());
}

/** The plate text: `plate`, else `label` without its `Plate: ` prefix. */
const plateOf = (p: { plate?: string | null; label?: string | null }): string | undefined =>
  p.plate ?? (p.label?.startsWith('Plate: ') ? p.label.slice('Plate: '.length) : undefined);

export function parseCodeProjectAi(input: ParseInput, context: AdapterContext): ParseOutcome {
  const outcome = emptyOutcome();
  const object = readJsonObject(input);
  if (!object.ok) return { ...outcome, failure: object.reason };
  const relay = relaySchema.safeParse(object.value);
  if (!relay.success) return { ...outcome, failure: firstIssue(relay.error, 'relay') };
  // The answers: every `alpr` entry of an ai_dump, or the body itself.
  const answers = relay.data.ai_dump ? relay.data.ai_dump.filter((d) => !d.api || d.api === 'alpr').map((d) => d.found) : [object.value];
  if (answers.length === 0) {
    outcome.ignored += 1;
    return outcome;
  }
  const camera = cameraOf(SOURCE, relay.data.camera ?? undefined, context);
  let item = 0;
  for (const raw of answers) {
    const answer = answerSchema.safeParse(raw);
    if (!answer.success) return { ...emptyOutcome(), failure: firstIssue(answer.error, 'answer') };
    if (!answer.data.predictions) return { ...emptyOutcome(), failure: 'not a CodeProject.AI answer: no predictions' };
    if (answer.data.success === false) {
      outcome.ignored += 1;
      continue;
    }
    // The relay's time of the frame when it gives one (the answer's is when the server replied).
    const timestamp = relay.data.timestamp != null ? readerTime(relay.data.timestamp, context.timezone) : httpDate(answer.data.timestampUTC);
    if (answer.data.predictions.length === 0) outcome.ignored += 1;
    for (const p of answer.data.predictions) {
      const prediction = predictionSchema.safeParse(p);
      if (!prediction.success) outcome.errors.push({ item, reason: firstIssue(prediction.error, `predictions[${item}]`) });
      else {
        const plate = plateOf(prediction.data);
        addRead(
          outcome,
          item,
          {
            vendor: SOURCE,
            timestamp,
            cameraId: camera.id,
            cameraMac: camera.mac,
            plateText: plate,
            confidence: normalizeConfidence(prediction.data.confidence, 'unit'),
          },
          { plate: plate ?? '' },
        );
      }
      item += 1;
    }
  }
  return outcome;
}

/** An answer of the ALPR module (`moduleId` ALPR or `command` alpr), or an ai_dump with an alpr entry. */
export function recognizesCodeProjectAi(input: ParseInput): boolean {
  const object = readJsonObject(input);
  if (!object.ok) return false;
  const v = object.value;
  if (Array.isArray(v.ai_dump)) return v.ai_dump.some((d: unknown) => typeof d === 'object' && d !== null && (d as { api?: unknown }).api === 'alpr');
  return Array.isArray(v.predictions) && (v.moduleId === 'ALPR' || v.command === 'alpr');
}
