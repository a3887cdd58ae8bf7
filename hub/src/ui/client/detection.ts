/// <reference lib="dom" />
import { EXPORT_DETECTIONS_PATH, LEGAL_HOLDS_PATH, detectionPath } from '../../platform/http/paths.ts';
import { api, ApiError, signInAgain } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { confidenceWords } from '@alpr/shared/detection/confidence';
import { imagePath } from './images.ts';
import { loadPurposes, purposeOnly, purposeProblem, setPurposeParams } from './purpose-fields.ts';
// The wire shape, written once by the verb that builds it (type-only: erased from the bundle).
import type { detectionDetail } from '../../search/detail.ts';

/*
 * One detection (`GET /api/v1/detections/{id}`, audited with a purpose): the scene, the
 * crop, the raw plate, the hash-chain position, its legal holds; place a hold; download a
 * signed evidence export of it.
 */
type Detail = NonNullable<Awaited<ReturnType<typeof detectionDetail>>>;

const reasonForm = byId<HTMLFormElement>('reason-form');
const id = reasonForm.dataset['id'] ?? '';
/** Purpose, case number and note: from the search's link, or from the form here. */
let why = purposeOnly(new URLSearchParams(location.search));

function fact(term: string, value: string | Node): HTMLElement[] {
  return [el('dt', {}, term), el('dd', {}, value)];
}

function render(d: Detail): void {
  const full = imagePath(d.images.full_url);
  const crop = imagePath(d.images.crop_url);
  const fullImage = byId<HTMLImageElement>('full-image');
  const cropImage = byId<HTMLImageElement>('crop-image');
  // A read without an image (or one past its year, 410) shows no empty frame.
  for (const [image, src] of [
    [fullImage, full],
    [cropImage, crop],
  ] as const) {
    const figure = image.closest('figure');
    if (src) image.src = src;
    if (figure) show(figure, src !== null);
    image.addEventListener('error', () => figure && show(figure, false), { once: true });
  }
  byId('facts').replaceChildren(
    ...fact('Plate (as read)', d.plate_number),
    ...fact('Captured', when(d.captured_at)),
    ...fact('Received by the hub', when(d.received_at)),
    ...fact('Site', d.collector.name),
    ...fact('Camera', d.camera.name),
    ...fact('Direction', d.direction),
    ...fact('Confidence', confidenceWords(d.confidence)),
    ...fact('Chain position', `#${d.chain.seq} of collector ${d.collector.id}`),
    ...fact('Record hash', el('code', {}, d.chain.record_hash)),
  );
  byId('holds').replaceChildren(
    ...(d.legal_holds.length === 0
      ? [el('li', {}, 'None')]
      : d.legal_holds.map((h) =>
          el('li', {}, `${h.case_id}: ${h.reason} (since ${when(h.created_at)}${h.released_at ? `, released ${when(h.released_at)}` : ''})`),
        )),
  );
  // captured_at is NOT NULL in the table; detail.ts's iso() types every time as nullable.
  const capturedAt = d.captured_at ?? '';
  const exportQuery = new URLSearchParams({ plate: d.plate_number, start_date: capturedAt, end_date: capturedAt });
  for (const [key, value] of why) exportQuery.set(key, value);
  byId<HTMLAnchorElement>('export').href = `${EXPORT_DETECTIONS_PATH}?${exportQuery.toString()}`;
  show(byId('detail'), true);
}

async function load(): Promise<void> {
  try {
    render(await api<Detail>('GET', `${detectionPath(id)}?${why.toString()}`));
    show(reasonForm, false);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return signInAgain();
    say(err instanceof Error ? err.message : 'Could not load the detection.');
  }
}

reasonForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const problem = purposeProblem();
  if (problem) return say(problem);
  why = setPurposeParams(new URLSearchParams());
  void load();
});

byId<HTMLFormElement>('hold-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const body = { detection_ids: [id], case_id: byId<HTMLInputElement>('case-id').value.trim(), reason: byId<HTMLInputElement>('hold-reason').value.trim() };
  api('POST', LEGAL_HOLDS_PATH, body)
    .then(() => {
      say(`Legal hold placed for case ${body.case_id}.`, 'info');
      return load();
    })
    .catch((err: unknown) => say(err instanceof Error ? err.message : 'Could not place the hold.'));
});

if (why.get('purpose')) void load();
else {
  show(reasonForm, true);
  loadPurposes().catch((err: unknown) => say(err instanceof Error ? err.message : 'Could not load the purposes.'));
}
