/**
 * Why someone looks (docs/security.md "Purposes"): a purpose from the admins' list, a case
 * number where that purpose requires one, and an optional note. The select is filled by
 * client/purpose-fields.ts from `GET /api/v1/purposes`, so a purpose an admin adds shows up
 * without a restart. Used by the search, investigation and detection pages.
 */
export function PurposeFields(props: { intro?: string }) {
  return (
    <fieldset class="wide purpose">
      <legend>{props.intro ?? 'Purpose of this search (recorded in the audit log)'}</legend>
      <div>
        <label for="purpose">Purpose</label>
        <select id="purpose" name="purpose" required>
          <option value="">Choose a purpose…</option>
        </select>
      </div>
      <div>
        <label for="case-number">Case number (required for some purposes)</label>
        <input id="case-number" name="case_number" maxlength={64} autocomplete="off" />
      </div>
      <div>
        <label for="reason">Note (optional)</label>
        <input id="reason" name="reason" maxlength={200} autocomplete="off" />
      </div>
    </fieldset>
  );
}
