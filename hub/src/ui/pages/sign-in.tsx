import { Page } from '../layout.tsx';

/**
 * Sign-in in steps, one visible at a time (client/sign-in.ts): password; then the
 * authenticator code, or enrolment (QR code, manual key, first code) when the account has
 * none yet; backup codes shown once with a confirm step; recovery with a backup code.
 */
export function SignInPage(props: { next: string; passwordChange?: boolean }) {
  return (
    <Page title="Sign in" script="sign-in">
      <p id="message" class="message" role="alert" aria-live="assertive"></p>
      <form id="password-step" class="card" data-next={props.next} data-password-change={props.passwordChange ? 'true' : undefined}>
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="username" required />
        <label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required />
        <button type="submit">Continue</button>
      </form>

      <form id="code-step" class="card" hidden>
        <h2>Two-factor code</h2>
        <p>Enter the 6-digit code your authenticator app shows for ALPR Hub.</p>
        <label for="code">Code</label>
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
        <button type="submit">Sign in</button>
        <p>
          <button type="button" class="link" id="use-backup">
            Lost your phone? Use a backup code
          </button>
        </p>
      </form>

      <form id="recovery-step" class="card" hidden>
        <h2>Use a backup code</h2>
        <p>Each backup code works once. Afterwards you set up your authenticator again.</p>
        <label for="backup-code">Backup code</label>
        <input id="backup-code" name="code" autocomplete="one-time-code" required />
        <button type="submit">Continue</button>
      </form>

      <form id="enroll-step" class="card" hidden>
        <h2>Set up two-factor authentication</h2>
        <p>Scan the code with an authenticator app (or type the key), then enter the code it shows.</p>
        <img id="qr" alt="QR code for your authenticator app" width="200" height="200" />
        <p>
          Key for manual entry: <code id="manual-key"></code>
        </p>
        <label for="enroll-code">Code from the app</label>
        <input id="enroll-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
        <button type="submit">Verify</button>
      </form>

      <form id="change-step" class="card" hidden>
        <h2>Choose your password</h2>
        <p>You signed in with a one-time password: choose your own (12 to 256 characters) to continue.</p>
        <label for="current-password">One-time (current) password</label>
        <input id="current-password" type="password" autocomplete="current-password" required />
        <label for="new-password">New password</label>
        <input id="new-password" type="password" autocomplete="new-password" minlength={12} maxlength={256} required />
        <label for="repeat-password">New password again</label>
        <input id="repeat-password" type="password" autocomplete="new-password" minlength={12} maxlength={256} required />
        <label for="change-code">A new code from your authenticator (the next one it shows)</label>
        <input id="change-code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
        <button type="submit">Save and continue</button>
      </form>

      <form id="codes-step" class="card" hidden>
        <h2>Your backup codes</h2>
        <p>
          Each code signs you in once if you lose your phone. They are shown <strong>only now</strong>: print them or store them in a password manager.
        </p>
        <ul id="backup-codes" class="codes"></ul>
        <label class="check">
          <input type="checkbox" id="codes-saved" required /> I have saved these codes
        </label>
        <button type="submit">Continue to the dashboard</button>
      </form>
    </Page>
  );
}
