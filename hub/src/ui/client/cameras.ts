/// <reference lib="dom" />
import { adminCameraPath, adminCollectorPartPath } from '../../platform/http/paths.ts';
import { api, ApiError } from './api.ts';
import { byId, el, say, show, when } from './dom.ts';
import { failed } from './failed.ts';
import { noCameraWords } from './collector-words.ts';
import {
  addressOf,
  cameraBody,
  cameraFormProblems,
  EMPTY_FORM,
  fieldsFor,
  kindOf,
  MODE_WORDS,
  needsSecret,
  outcomeLabel,
  passwordHint,
  valuesOf,
  vendorOf,
  type CameraField,
  type CameraFormValues,
} from './camera-form.ts';
// The wire shape, written once by the server's presenter (type-only: erased from the bundle).
import type { CameraRecord } from '../../collectors/cameras/list.ts';
import { SNAPSHOT_FIELDS } from './snapshot-form.ts';

/*
 * A collector's cameras on its view (docs/cameras-central.md): the table with each camera's
 * last answer, Edit / Disable-Enable / Remove, and one form for add and edit that shows only
 * the fields the chosen kind needs and says what is wrong as it is typed (camera-form.ts).
 * Password and token are write-only: the form never holds a stored one, blank means "keep".
 */
const FIELDS: readonly CameraField[] = ['name', 'host', 'port', 'channel', ...SNAPSHOT_FIELDS, 'username', 'password', 'token', 'camera_ids', 'timezone'];
const idOf = (field: CameraField): string => `camera-${field.replaceAll('_', '-')}`;
const input = (field: CameraField): HTMLInputElement => byId<HTMLInputElement>(idOf(field));
const form = (): HTMLFormElement => byId<HTMLFormElement>('camera-form');

let collectorId: string | undefined;
let editing: CameraRecord | undefined;
let touched = new Set<CameraField>();
let submitted = false;
let changed: () => Promise<void> = () => Promise.resolve();

function read(): CameraFormValues {
  const text = (field: CameraField): string => input(field).value;
  return {
    name: text('name'),
    vendor: vendorOf(byId<HTMLSelectElement>('camera-vendor').value),
    mode: byId<HTMLSelectElement>('camera-mode').value === 'push' ? 'push' : 'pull',
    host: text('host'),
    port: text('port'),
    channel: text('channel'),
    timezone: text('timezone'),
    username: text('username'),
    password: text('password'),
    token: text('token'),
    camera_ids: text('camera_ids'),
    snapshot_url: text('snapshot_url'),
    rtsp_url: text('rtsp_url'),
    frames_per_second: text('frames_per_second'),
    region: text('region'),
    change_threshold: text('change_threshold'),
    passage_gap_ms: text('passage_gap_ms'),
    enabled: byId<HTMLInputElement>('camera-enabled').checked,
  };
}

function fill(v: CameraFormValues): void {
  for (const field of FIELDS) input(field).value = v[field];
  byId<HTMLSelectElement>('camera-vendor').value = v.vendor;
  byId<HTMLSelectElement>('camera-mode').value = v.mode;
  byId<HTMLInputElement>('camera-enabled').checked = v.enabled;
}

function formError(text: string): void {
  byId('camera-form-error').textContent = text;
}

/** Shows the fields the kind needs, the hints that depend on it, and the problems of what was typed. */
function refresh(): Partial<Record<CameraField, string>> {
  const modes = byId<HTMLSelectElement>('camera-mode');
  // An ordinary camera is always pulled: the box takes its frames.
  if (byId<HTMLSelectElement>('camera-vendor').value === 'snapshot') modes.value = 'pull';
  const v = read();
  const shown = fieldsFor(v.vendor, v.mode);
  for (const option of modes.options) {
    option.textContent = MODE_WORDS[v.vendor][option.value === 'push' ? 'push' : 'pull'];
    option.disabled = v.vendor === 'snapshot' && option.value === 'push';
  }
  for (const field of FIELDS) {
    const wrapper = form().querySelector<HTMLElement>(`[data-field="${field}"]`);
    if (wrapper) show(wrapper, shown.has(field));
  }
  const stored = editing?.has_credentials === true;
  const again = stored && needsSecret(v, editing);
  byId(`${idOf('password')}-hint`).textContent = passwordHint(v, editing);
  byId(`${idOf('token')}-hint`).textContent = !stored
    ? 'Made on the console for this collector.'
    : again
      ? 'The address or kind changed: enter the API key again.'
      : 'Leave blank to keep the stored API key.';
  const problems = cameraFormProblems(v, editing);
  for (const field of FIELDS) {
    // A required login asked for again is said at once: the person changed the username or address, not the password field.
    const speak = submitted || touched.has(field) || (again && (field === 'password' || field === 'token'));
    const message = shown.has(field) && speak ? (problems[field] ?? '') : '';
    byId(`${idOf(field)}-error`).textContent = message;
    if (message) input(field).setAttribute('aria-invalid', 'true');
    else input(field).removeAttribute('aria-invalid');
  }
  return problems;
}

function reset(): void {
  editing = undefined;
  touched = new Set();
  submitted = false;
  fill(EMPTY_FORM);
  byId('camera-form-title').textContent = 'Add a camera';
  byId('camera-submit').textContent = 'Add camera';
  show(byId('camera-cancel'), false);
  formError('');
  refresh();
}

function startEdit(c: CameraRecord): void {
  reset();
  editing = c;
  fill(valuesOf(c));
  byId('camera-form-title').textContent = `Edit camera ${c.name}`;
  byId('camera-submit').textContent = 'Save changes';
  show(byId('camera-cancel'), true);
  refresh();
  input('name').focus();
}

const path = (cameraId?: string): string => (cameraId ? adminCameraPath(collectorId ?? '', cameraId) : adminCollectorPartPath(collectorId ?? '', 'cameras'));

function button(label: string, action: string, cameraName: string, onClick: () => void): HTMLButtonElement {
  const b = el('button', { type: 'button', class: 'secondary' }, label);
  b.setAttribute('aria-label', `${action} camera ${cameraName}`);
  b.addEventListener('click', onClick);
  return b;
}

function answerCell(c: CameraRecord): HTMLTableCellElement {
  if (!c.enabled) return el('td', {}, el('span', { class: 'outcome' }, 'Off'), el('br'), el('span', { class: 'muted' }, 'not sent to the box'));
  return el(
    'td',
    {},
    el('span', { class: 'outcome', 'data-outcome': c.last_outcome ?? 'none' }, outcomeLabel(c.last_outcome)),
    c.last_outcome_at ? el('br') : null,
    c.last_outcome_at ? el('span', { class: 'muted' }, when(c.last_outcome_at)) : null,
    c.last_outcome_detail ? el('br') : null,
    c.last_outcome_detail ? el('span', { class: 'muted' }, c.last_outcome_detail) : null,
  );
}

function row(c: CameraRecord): HTMLTableRowElement {
  const kind = kindOf(c);
  const toggle = button(c.enabled ? 'Disable' : 'Enable', c.enabled ? 'Disable' : 'Enable', c.name, () => {
    api('PATCH', path(c.id), { enabled: !c.enabled })
      .then(async () => {
        say(
          c.enabled
            ? `Camera ${c.name} disabled: the box stops it with its next heartbeat.`
            : `Camera ${c.name} enabled: the box starts it with its next heartbeat.`,
          'info',
        );
        await changed();
      })
      .catch(failed);
  });
  const remove = button('Remove', 'Remove', c.name, () => {
    if (!confirm(`Remove camera ${c.name}? The box stops it with its next heartbeat and its stored login is deleted. Its past reads keep the name.`)) return;
    api('DELETE', path(c.id), {})
      .then(async () => {
        if (editing?.id === c.id) reset();
        say(`Camera ${c.name} removed.`, 'info');
        await changed();
      })
      .catch(failed);
  });
  return el(
    'tr',
    { 'data-camera': c.id },
    el('td', {}, c.name),
    el('td', {}, kind.vendor, el('br'), el('span', { class: 'muted' }, kind.mode)),
    el('td', {}, addressOf(c)),
    answerCell(c),
    el(
      'td',
      { class: 'actions' },
      button('Edit', 'Edit', c.name, () => startEdit(c)),
      toggle,
      remove,
    ),
  );
}

/** The cameras of the collector on view; a different collector starts the form afresh. */
export function showCameras(id: string, cameras: readonly CameraRecord[], onAppliance?: number): void {
  if (id !== collectorId) {
    collectorId = id;
    reset();
  } else if (editing && !cameras.some((c) => c.id === editing?.id)) {
    reset();
  }
  byId('cameras')
    .querySelector('tbody')
    ?.replaceChildren(...(cameras.length > 0 ? cameras.map(row) : [el('tr', {}, el('td', { colspan: '5' }, noCameraWords(onAppliance)))]));
}

function submit(): void {
  submitted = true;
  formError('');
  const v = read();
  const problems = refresh();
  const shown = fieldsFor(v.vendor, v.mode);
  const first = FIELDS.find((field) => shown.has(field) && problems[field] !== undefined);
  if (first) {
    formError('Check the fields marked below.');
    input(first).focus();
    return;
  }
  const before = editing;
  const body = cameraBody(v, before);
  if (before && Object.keys(body).length === 0) {
    formError('Nothing changed.');
    return;
  }
  const sent = before
    ? api<{ camera: CameraRecord; config_version: number }>('PATCH', path(before.id), body)
    : api<{ camera: CameraRecord; config_version: number }>('POST', path(), body);
  sent
    .then(async (answer) => {
      reset();
      say(
        `Camera ${answer.camera.name} ${before ? 'saved' : 'added'}: the box gets configuration version ${answer.config_version} with its next heartbeat and answers under Last answer.`,
        'info',
      );
      await changed();
    })
    .catch((err: unknown) => {
      // The hub's own words (a name already used, a login it will not keep): said on the form, where the person is.
      if (err instanceof ApiError && err.status !== 401 && err.status !== 403) formError(err.message);
      else failed(err);
    });
}

/** Wires the form once; `onChanged` reloads the collector's view after a change. */
export function bindCameraForm(onChanged: () => Promise<void>): void {
  changed = onChanged;
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  byId('time-zones').replaceChildren(...['UTC', ...zones].map((zone) => el('option', { value: zone })));
  const f = form();
  f.addEventListener('input', (event) => {
    const name = (event.target as HTMLInputElement | null)?.name;
    if (name && (FIELDS as readonly string[]).includes(name)) touched.add(name as CameraField);
    refresh();
  });
  f.addEventListener('change', () => refresh());
  f.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
  byId('camera-cancel').addEventListener('click', reset);
  reset();
}
