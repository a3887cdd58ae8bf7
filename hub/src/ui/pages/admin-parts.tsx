/** The parts every admin page shares: a secret shown once, and the fresh-code prompt (client/fresh-factor.ts). */
export function SecretOnce() {
  return (
    <section id="secret" class="card secret" hidden aria-labelledby="secret-title">
      <h2 id="secret-title"></h2>
      <p id="secret-help"></p>
      <p>
        <code id="secret-value"></code>
      </p>
      <label class="check">
        <input type="checkbox" id="secret-copied" /> I have copied it
      </label>
      <button type="button" id="secret-done" disabled>
        Done
      </button>
    </section>
  );
}

export function FreshCodePrompt() {
  return (
    <form id="reverify-form" class="card" hidden>
      <h2>Confirm with your authenticator</h2>
      <p>This needs a code from the last five minutes.</p>
      <label for="reverify-code">Code</label>
      <input id="reverify-code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
      <button type="submit">Confirm</button>
    </form>
  );
}
