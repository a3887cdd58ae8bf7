/// <reference lib="dom" />
import { byId, el, say, show } from './dom.ts';
import { forPeople } from './words.ts';

/*
 * Sign-in steps over the /auth API (docs/auth.md). The partial session after the password
 * rides in the httpOnly cookie the hub sets; this script never sees a token. The hub
 * answers some steps with a redirect: to `/auth/2fa/setup` (enrolment material, JSON) or
 * to the dashboard; fetch follows it and the final URL says which.
 */
const steps = ['password-step', 'code-step', 'recovery-step', 'enroll-step', 'codes-step', 'change-step'] as const;
const passwordStep = byId<HTMLFormElement>('password-step');
const next = passwordStep.dataset['next'] ?? '/live';

function step(id: (typeof steps)[number]): void {
  for (const s of steps) show(byId(s), s === id);
  const first = byId(id).querySelector<HTMLInputElement>('input');
  first?.focus();
}

async function post(path: string, body: Record<string, string>): Promise<Response> {
  return fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
}

async function problem(res: Response): Promise<string> {
  const data = (await res.json().catch(() => ({}))) as { detail?: string; error?: { message?: string }; retry_after_seconds?: number };
  const text = forPeople(data.detail ?? data.error?.message ?? `The hub answered ${res.status}.`);
  return data.retry_after_seconds ? `${text}. Try again in ${data.retry_after_seconds} seconds.` : text;
}

const goesToSetup = (res: Response): boolean => new URL(res.url).pathname === '/auth/2fa/setup';

async function showEnrolment(res: Response): Promise<void> {
  const material = (await res.json()) as { qr_code_uri: string; manual_entry_key: string };
  byId<HTMLImageElement>('qr').src = material.qr_code_uri;
  byId('manual-key').textContent = material.manual_entry_key.replace(/(.{4})/g, '$1 ').trim();
  say('Your account needs two-factor authentication: set it up now.', 'info');
  step('enroll-step');
}

function handle(form: HTMLFormElement, run: () => Promise<void>): void {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type="submit"]') as HTMLButtonElement | null;
    if (button) button.disabled = true;
    run()
      .catch(() => say('The hub could not be reached. Check the connection and try again.'))
      .finally(() => {
        if (button) button.disabled = false;
      });
  });
}

const value = (id: string): string => byId<HTMLInputElement>(id).value.trim();
let confirmAfterChange = false;

/**
 * Signed in: on to the page asked for, unless the hub still wants a password change (an
 * account made or reset by an admin signs in with a one-time password, docs/auth.md).
 */
async function finish(): Promise<void> {
  const me = await fetch('/auth/me', { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const who = me.ok ? ((await me.json().catch(() => ({}))) as { must_change_password?: boolean }) : {};
  if (who.must_change_password === true || (me.status === 403 && me.headers.get('X-Password-Change-Required') === 'true')) {
    byId<HTMLInputElement>('current-password').value = byId<HTMLInputElement>('password').value;
    say('Choose your own password before going on.', 'info');
    step('change-step');
    return;
  }
  location.assign(next);
}

handle(passwordStep, async () => {
  const res = await post('/auth/login', { email: value('email'), password: byId<HTMLInputElement>('password').value });
  if (!res.ok) return say(await problem(res));
  say('');
  if (goesToSetup(res)) return showEnrolment(res);
  step('code-step');
});

handle(byId<HTMLFormElement>('code-step'), async () => {
  const res = await post('/auth/2fa/verify', { code: value('code') });
  if (!res.ok) return say(await problem(res));
  await finish();
});

byId('use-backup').addEventListener('click', () => {
  say('');
  step('recovery-step');
});

handle(byId<HTMLFormElement>('recovery-step'), async () => {
  const res = await post('/auth/2fa/recovery', { code: value('backup-code') });
  if (!res.ok) return say(await problem(res));
  if (goesToSetup(res)) return showEnrolment(res);
  await finish();
});

handle(byId<HTMLFormElement>('enroll-step'), async () => {
  const res = await post('/auth/2fa/setup/verify', { code: value('enroll-code') });
  if (!res.ok) return say(await problem(res));
  const result = (await res.json()) as { codes: string[]; warning?: string };
  const list = byId('backup-codes');
  list.replaceChildren(...result.codes.map((code) => el('li', {}, el('code', {}, code))));
  say(result.warning ?? '', 'info');
  step('codes-step');
});

handle(byId<HTMLFormElement>('codes-step'), async () => {
  if (!byId<HTMLInputElement>('codes-saved').checked) return say('Tick the box once the codes are saved.');
  const res = await post('/auth/2fa/setup/confirm', {});
  if (res.status === 403 && res.headers.get('X-Password-Change-Required') === 'true') {
    // A one-time password: the hub takes the confirmation once the password is the user's own.
    confirmAfterChange = true;
    return finish();
  }
  if (!res.ok) return say(await problem(res));
  await finish();
});

handle(byId<HTMLFormElement>('change-step'), async () => {
  const fresh = byId<HTMLInputElement>('new-password').value;
  if (fresh !== byId<HTMLInputElement>('repeat-password').value) return say('The two new passwords differ.');
  const res = await post('/auth/password', {
    current_password: byId<HTMLInputElement>('current-password').value,
    new_password: fresh,
    code: value('change-code'),
  });
  if (!res.ok) return say(await problem(res));
  if (confirmAfterChange) {
    const confirmed = await post('/auth/2fa/setup/confirm', {});
    if (!confirmed.ok) return say(await problem(confirmed));
  }
  location.assign(next);
});

// Sent here by a page while a password change is still due (the server looked): go straight to that step.
step(passwordStep.dataset['passwordChange'] === 'true' ? 'change-step' : 'password-step');
